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

package suite

import (
	"os"
	"path/filepath"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/example/foo-operator/test/framework"
)

// SampleHPA is the HorizontalPodAutoscaler of config/samples, in namespace ns and targeting
// Foo fooName, with a scale-down stabilization window of 0: kube-controller-manager's
// default waits 5 minutes of lower load before it scales down, the specs do not.
func SampleHPA(ns, fooName string) *autoscalingv2.HorizontalPodAutoscaler {
	ginkgo.GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join(framework.Root(), "config", "samples", "autoscaling_v2_horizontalpodautoscaler.yaml"))
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	gomega.Expect(yaml.UnmarshalStrict(raw, hpa)).To(gomega.Succeed())
	hpa.Namespace, hpa.Spec.ScaleTargetRef.Name = ns, fooName
	hpa.Spec.Behavior = &autoscalingv2.HorizontalPodAutoscalerBehavior{
		ScaleDown: &autoscalingv2.HPAScalingRules{StabilizationWindowSeconds: ptr.To[int32](0)},
	}
	return hpa
}
