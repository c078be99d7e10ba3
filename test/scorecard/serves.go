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
	"fmt"
	"io"
	"net/http"
	"time"

	scapiv1alpha3 "github.com/operator-framework/api/pkg/apis/scorecard/v1alpha3"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// The steps of foo-serves, in order.
const (
	stepCreate = "create the sample Foo"
	stepReady  = "wait for Ready"
	stepServe  = "operand answers on each pod IP"
	stepScale  = "scale through /scale"
	stepDelete = "delete the Foo and see its Deployment garbage-collected"
)

// httpTimeout bounds each request to an operand pod.
const httpTimeout = 2 * time.Second

// servesTest is one run of foo-serves against a cluster.
type servesTest struct {
	c         client.Client
	http      *http.Client
	bundleDir string
	namespace string
	log       *testLog

	// foo is the Foo the test created, as last read; set by create.
	foo *samplev1alpha1.Foo
	// replicas is the replica count the Foo should reach; set by create, raised by scale.
	replicas int32
}

// fooServes runs the foo-serves test. Its state is error when it cannot reach the cluster.
func fooServes(ctx context.Context, opts options) scapiv1alpha3.TestResult {
	log := &testLog{}
	t, err := newServesTest(opts, log)
	if err != nil {
		return scapiv1alpha3.TestResult{Name: fooServesName, State: scapiv1alpha3.ErrorState, Errors: []string{err.Error()}}
	}
	return t.test().run(ctx, opts.stepTimeout, log)
}

// newServesTest connects to the cluster the pod runs in (or the kubeconfig's, outside one).
func newServesTest(opts options, log *testLog) (*servesTest, error) {
	namespace, err := namespaceOf(opts.namespace, namespaceFile)
	if err != nil {
		return nil, err
	}
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return nil, fmt.Errorf("no Kubernetes client configuration: %w", err)
	}
	cfg.WarningHandlerWithContext = log // the pod's log is the result: keep stderr quiet
	scheme := runtime.NewScheme()
	builder := runtime.NewSchemeBuilder(samplev1alpha1.AddToScheme, appsv1.AddToScheme,
		corev1.AddToScheme, autoscalingv1.AddToScheme)
	if err := builder.AddToScheme(scheme); err != nil {
		return nil, fmt.Errorf("build scheme: %w", err)
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	return &servesTest{c: c, http: &http.Client{Timeout: httpTimeout},
		bundleDir: opts.bundleDir, namespace: namespace, log: log}, nil
}

// test is foo-serves as a sequence of steps.
func (t *servesTest) test() test {
	return test{
		name: fooServesName,
		steps: []step{
			{stepCreate, t.create},
			{stepReady, t.waitReady},
			{stepServe, t.operandAnswers},
			{stepScale, t.scale},
			{stepDelete, t.deleteAndCollect},
		},
		cleanup: t.cleanup,
	}
}

// create creates the bundle's sample Foo under a unique name.
func (t *servesTest) create(ctx context.Context) error {
	sample, err := sampleFoo(t.bundleDir)
	if err != nil {
		return err
	}
	foo := uniqueFoo(sample, t.namespace)
	if err := t.c.Create(ctx, foo); err != nil {
		return fmt.Errorf("create Foo %s: %w", klog.KObj(foo), err)
	}
	t.foo, t.replicas = foo, foo.Spec.DesiredReplicas()
	t.log.logf("created Foo %s (deploymentName %s, replicas %d)", klog.KObj(foo), foo.Spec.DeploymentName, t.replicas)
	return nil
}

// waitReady waits for the Foo to be Ready with its replicas available.
func (t *servesTest) waitReady(ctx context.Context) error {
	return poll(ctx, pollInterval, t.ready)
}

// ready reads the Foo and checks that it is Ready with t.replicas available.
func (t *servesTest) ready(ctx context.Context) error {
	if err := t.c.Get(ctx, client.ObjectKeyFromObject(t.foo), t.foo); err != nil {
		return fmt.Errorf("get Foo %s: %w", klog.KObj(t.foo), err)
	}
	return readyWith(t.foo, t.replicas)
}

// operandAnswers waits for every Ready pod of the Foo to answer GET / with 200.
func (t *servesTest) operandAnswers(ctx context.Context) error {
	return poll(ctx, pollInterval, t.podsAnswer)
}

// podsAnswer lists the Foo's pods and asks each Ready one for /. It fails when none is Ready.
func (t *servesTest) podsAnswer(ctx context.Context) error {
	sel, err := podSelector(t.foo)
	if err != nil {
		return err
	}
	var pods corev1.PodList
	if err := t.c.List(ctx, &pods, client.InNamespace(t.namespace), client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return fmt.Errorf("list the pods of Foo %s: %w", klog.KObj(t.foo), err)
	}
	ready := readyPods(pods.Items)
	if len(ready) == 0 {
		return fmt.Errorf("none of the %d pods of Foo %s is Ready", len(pods.Items), klog.KObj(t.foo))
	}
	for _, pod := range ready {
		if err := t.get(ctx, pod); err != nil {
			return err
		}
	}
	t.log.logf("every Ready pod of Foo %s answered 200 (%d pods)", klog.KObj(t.foo), len(ready))
	return nil
}

// get asks pod for / and expects 200 OK.
func (t *servesTest) get(ctx context.Context, pod *corev1.Pod) error {
	target, err := podURL(pod)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	resp, err := t.http.Do(req)
	if err != nil {
		return fmt.Errorf("pod %s: %w", pod.Name, err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("pod %s: GET %s answered %q, want 200 OK", pod.Name, target, resp.Status)
	}
	return nil
}

// scale adds a replica through the Foo's scale subresource and waits for the Foo and its
// Deployment to have it.
func (t *servesTest) scale(ctx context.Context) error {
	if err := t.updateScale(ctx); err != nil {
		return err
	}
	return poll(ctx, pollInterval, t.scaled)
}

// updateScale sets the replicas of the Foo's scale subresource to one more than it reads.
func (t *servesTest) updateScale(ctx context.Context) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		scale := &autoscalingv1.Scale{}
		if err := t.c.SubResource("scale").Get(ctx, t.foo, scale); err != nil {
			return fmt.Errorf("get the scale of Foo %s: %w", klog.KObj(t.foo), err)
		}
		scale.Spec.Replicas++
		if err := t.c.SubResource("scale").Update(ctx, t.foo, client.WithSubResourceBody(scale)); err != nil {
			return fmt.Errorf("update the scale of Foo %s to %d: %w", klog.KObj(t.foo), scale.Spec.Replicas, err)
		}
		t.log.logf("scaled Foo %s to %d replicas through /scale", klog.KObj(t.foo), scale.Spec.Replicas)
		t.replicas = scale.Spec.Replicas
		return nil
	})
}

// scaled checks that the Foo asks for, and is Ready with, t.replicas, and so does its
// Deployment.
func (t *servesTest) scaled(ctx context.Context) error {
	if err := t.ready(ctx); err != nil {
		return err
	}
	if got := t.foo.Spec.DesiredReplicas(); got != t.replicas {
		return fmt.Errorf("the Foo's spec.replicas is %d, want %d", got, t.replicas)
	}
	var d appsv1.Deployment
	if err := t.c.Get(ctx, t.deploymentKey(), &d); err != nil {
		return fmt.Errorf("get Deployment %s: %w", t.deploymentKey(), err)
	}
	if got := ptr.Deref(d.Spec.Replicas, 1); got != t.replicas {
		return fmt.Errorf("the Deployment %s has spec.replicas %d, want %d", t.deploymentKey(), got, t.replicas)
	}
	return nil
}

// deleteAndCollect deletes the Foo and waits for the garbage collector to delete its
// Deployment.
func (t *servesTest) deleteAndCollect(ctx context.Context) error {
	if err := t.c.Delete(ctx, t.foo); err != nil {
		return fmt.Errorf("delete Foo %s: %w", klog.KObj(t.foo), err)
	}
	t.log.logf("deleted Foo %s; waiting for Deployment %s to be garbage-collected", klog.KObj(t.foo), t.deploymentKey())
	return poll(ctx, pollInterval, t.deploymentGone)
}

// deploymentGone checks that the Foo's Deployment is NotFound.
func (t *servesTest) deploymentGone(ctx context.Context) error {
	var d appsv1.Deployment
	err := t.c.Get(ctx, t.deploymentKey(), &d)
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case err != nil:
		return fmt.Errorf("get Deployment %s: %w", t.deploymentKey(), err)
	}
	return fmt.Errorf("the Deployment %s still exists (deletionTimestamp %v, finalizers %q, owners %q)",
		t.deploymentKey(), d.DeletionTimestamp, d.Finalizers, owners(&d))
}

// deploymentKey names the Foo's Deployment.
func (t *servesTest) deploymentKey() client.ObjectKey {
	return client.ObjectKey{Namespace: t.namespace, Name: t.foo.Spec.DeploymentName}
}

// cleanup deletes the Foo after a failure, if the test created one.
func (t *servesTest) cleanup(ctx context.Context) {
	if t.foo == nil {
		return
	}
	if err := client.IgnoreNotFound(t.c.Delete(ctx, t.foo)); err != nil {
		t.log.logf("cleanup: delete Foo %s: %v", klog.KObj(t.foo), err)
		return
	}
	t.log.logf("cleanup: Foo %s deleted", klog.KObj(t.foo))
}
