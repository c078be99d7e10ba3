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
	"fmt"
	"net"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/klog/v2"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// readyWith checks that foo is Ready for its current generation with replicas available,
// and says what it found when not.
func readyWith(foo *samplev1alpha1.Foo, replicas int32) error {
	c := meta.FindStatusCondition(foo.Status.Conditions, samplev1alpha1.ReadyCondition)
	switch {
	case c == nil:
		return fmt.Errorf("the Foo %s has no Ready condition", klog.KObj(foo))
	case c.Status != metav1.ConditionTrue || c.ObservedGeneration != foo.Generation:
		return fmt.Errorf("the Foo %s, at generation %d, is Ready=%s for generation %d (%s: %s)",
			klog.KObj(foo), foo.Generation, c.Status, c.ObservedGeneration, c.Reason, c.Message)
	case foo.Status.AvailableReplicas != replicas:
		return fmt.Errorf("the Foo %s is Ready with %d available replicas, want %d",
			klog.KObj(foo), foo.Status.AvailableReplicas, replicas)
	}
	return nil
}

// podSelector selects the pods of foo by the selector its status publishes (status.selector,
// what an autoscaler of the Foo uses).
func podSelector(foo *samplev1alpha1.Foo) (labels.Selector, error) {
	if foo.Status.Selector == "" {
		return nil, fmt.Errorf("the Foo %s publishes no status.selector", klog.KObj(foo))
	}
	sel, err := labels.Parse(foo.Status.Selector)
	if err != nil {
		return nil, fmt.Errorf("the status.selector %q of Foo %s: %w", foo.Status.Selector, klog.KObj(foo), err)
	}
	return sel, nil
}

// readyPods are the pods that are Ready and not being deleted.
func readyPods(pods []corev1.Pod) []*corev1.Pod {
	var ready []*corev1.Pod
	for i := range pods {
		if pods[i].DeletionTimestamp == nil && podReady(&pods[i]) {
			ready = append(ready, &pods[i])
		}
	}
	return ready
}

// podReady reports whether pod's Ready condition is True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podURL is the URL of / on pod's IP and serving port.
func podURL(pod *corev1.Pod) (string, error) {
	port, ok := servingPort(pod)
	if !ok {
		return "", fmt.Errorf("pod %s declares no TCP container port", pod.Name)
	}
	if pod.Status.PodIP == "" {
		return "", fmt.Errorf("pod %s has no IP", pod.Name)
	}
	return "http://" + net.JoinHostPort(pod.Status.PodIP, strconv.Itoa(int(port))) + "/", nil
}

// servingPort is the container port named http, or else the first TCP container port.
func servingPort(pod *corev1.Pod) (int32, bool) {
	var first int32
	for _, c := range pod.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name == "http" {
				return p.ContainerPort, true
			}
			if first == 0 && (p.Protocol == corev1.ProtocolTCP || p.Protocol == "") {
				first = p.ContainerPort
			}
		}
	}
	return first, first != 0
}

// owners names d's owners as Kind/name.
func owners(d *appsv1.Deployment) []string {
	names := make([]string, 0, len(d.OwnerReferences))
	for _, o := range d.OwnerReferences {
		names = append(names, o.Kind+"/"+o.Name)
	}
	return names
}
