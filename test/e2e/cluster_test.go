//go:build e2e

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

package e2e

import (
	"context"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/example/foo-operator/test/framework"
)

// The cluster every suite and `make run` start with hack/local-cluster.sh up. On a real node,
// up builds the node again, so this runs on the simulated node only.
var _ = Describe("hack/local-cluster.sh up", Label(SimulatedNode), func() {
	It("starts metrics-server again when it exited, and returns once the metrics API serves", func() {
		// kwokctl starts the control plane's processes at once, and metrics-server exits when
		// kube-apiserver does not accept connections yet: killed, it is left as that exit
		// leaves it, a zombie this machine's init does not reap, which kwokctl takes for a
		// process that runs.
		metricsServer := component("metrics-server")
		killed, err := metricsServer.Pid()
		Expect(err).NotTo(HaveOccurred())
		Expect(syscall.Kill(killed, syscall.SIGKILL)).To(Succeed())
		Eventually(metricsServer.Running).WithTimeout(time.Minute).Should(BeFalse())

		Expect(cluster.Up()).To(Succeed())

		Expect(metricsServer.Running()).To(BeTrue(), "metrics-server runs again")
		Expect(metricsServer.Pid()).NotTo(Equal(killed))
		_, err = clientset.Discovery().RESTClient().Get().AbsPath("/apis/metrics.k8s.io/v1beta1/nodes").DoRaw(context.Background())
		Expect(err).NotTo(HaveOccurred(), "the metrics API serves through the aggregator")
	})
})

// component is the cluster's process of that name.
func component(name string) framework.Component {
	GinkgoHelper()
	components, err := cluster.Components()
	Expect(err).NotTo(HaveOccurred())
	for _, c := range components {
		if c.Name == name {
			return c
		}
	}
	Fail("the cluster has no " + name)
	return framework.Component{}
}
