/*
Copyright 2026 The Foo Operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os/signal"
	"syscall"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
)

const (
	bareClientUserAgent = "bench-bare-client"
	// bareClientLabel marks the Deployments the bare client made, which are all it caches.
	bareClientLabel = "app.kubernetes.io/managed-by"
)

// runBareClient is the lower bound the operator is measured against: it makes only the
// requests that converging Foos needs — create each Deployment (the operator's), set its replicas when the
// Foo's change, write a Foo's status when its available replicas change — with the
// operator's client limits (-qps, -burst), its number of workers and its cache scope (Foos, and
// only the Deployments it made). It has none of the operator's checks, conditions, events,
// leader election or metrics.
func runBareClient(args []string) error {
	fs := flag.NewFlagSet("bare-client", flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the cluster")
	qps := fs.Float64("qps", -1, "requests per second at most; negative for no client-side limit")
	burst := fs.Int("burst", 30, "requests in a burst above -qps")
	workers := fs.Int("workers", 2, "how many Foos it syncs at once (bench gives it the operator's)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		return err
	}
	cfg.UserAgent, cfg.QPS, cfg.Burst = bareClientUserAgent, float32(*qps), *burst
	if *qps > 0 {
		// One bucket for both clients, as the operator has: each would build its own from
		// QPS and Burst, and together send up to twice the limit.
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	fooGVR := schema.GroupVersionResource{Group: fooGroup, Version: "v1alpha1", Resource: "foos"}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	fooInformer := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0).ForResource(fooGVR).Informer()
	kubeInformers := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = bareClientLabel + "=" + bareClientUserAgent
	}))
	deployments := kubeInformers.Apps().V1().Deployments()
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	enqueue := func(obj any) {
		if key, err := cache.MetaNamespaceKeyFunc(obj); err == nil {
			queue.Add(key)
		}
	}
	_, _ = fooInformer.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }})
	_, _ = deployments.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, // Deployments are named after their Foo here
	})
	go fooInformer.Run(ctx.Done())
	kubeInformers.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), fooInformer.HasSynced, deployments.Informer().HasSynced) {
		return fmt.Errorf("caches did not sync")
	}

	sync := func(key string) error {
		obj, exists, err := fooInformer.GetStore().GetByKey(key)
		if err != nil || !exists {
			return err
		}
		foo := obj.(*unstructured.Unstructured)
		name, _, _ := unstructured.NestedString(foo.Object, "spec", "deploymentName")
		replicas, _, _ := unstructured.NestedInt64(foo.Object, "spec", "replicas")
		d, err := deployments.Lister().Deployments(foo.GetNamespace()).Get(name)
		switch {
		case apierrors.IsNotFound(err):
			if d, err = deploymentFor(foo); err == nil {
				_, err = kube.AppsV1().Deployments(foo.GetNamespace()).Create(ctx, d, metav1.CreateOptions{})
			}
			return err
		case err != nil:
			return err
		case ptr.Deref(d.Spec.Replicas, 1) != int32(replicas):
			patch := fmt.Appendf(nil, `{"spec":{"replicas":%d}}`, replicas)
			_, err = kube.AppsV1().Deployments(d.Namespace).Patch(ctx, d.Name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		}
		available, _, _ := unstructured.NestedInt64(foo.Object, "status", "availableReplicas")
		if int64(d.Status.AvailableReplicas) == available || d.Status.AvailableReplicas != int32(replicas) {
			return nil
		}
		patch := fmt.Appendf(nil, `{"status":{"availableReplicas":%d}}`, d.Status.AvailableReplicas)
		_, err = dyn.Resource(fooGVR).Namespace(foo.GetNamespace()).Patch(ctx, foo.GetName(), types.MergePatchType, patch, metav1.PatchOptions{}, "status")
		return err
	}
	fmt.Printf("\"Starting workers\" count=%d\n", *workers) // read by bench, as sample-controller's line
	for range *workers {
		go func() {
			for {
				key, shutdown := queue.Get()
				if shutdown {
					return
				}
				if err := sync(key); err != nil {
					queue.AddRateLimited(key)
				} else {
					queue.Forget(key)
					if _, isFoo, _ := fooInformer.GetStore().GetByKey(key); isFoo {
						fmt.Println("Successfully synced", key) // counted by bench, as sample-controller's line
					}
				}
				queue.Done(key)
			}
		}()
	}
	<-ctx.Done()
	queue.ShutDown()
	return nil
}

// deploymentFor is the Deployment the operator makes for foo (controllers.DeploymentFor, its
// default image), with the label of the bare client's cache: the two clusters run the same
// pods, so that what the operator costs beyond the bare client is its own doing, not its
// template's (probes, resources, security contexts, a volume, more labels than
// sample-controller's).
func deploymentFor(foo *unstructured.Unstructured) (*appsv1.Deployment, error) {
	typed := &samplev1alpha1.Foo{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(foo.Object, typed); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(controllers.DeploymentFor(typed, controllers.DefaultOperandImage))
	if err != nil {
		return nil, err
	}
	d := &appsv1.Deployment{}
	if err := json.Unmarshal(raw, d); err != nil {
		return nil, err
	}
	d.Labels[bareClientLabel] = bareClientUserAgent
	return d, nil
}
