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

// Package suite adapts test/framework to Ginkgo specs: a failed command fails the spec, a
// background process stops when the spec ends and its log joins a failed spec's report.
package suite

import (
	"io"
	"path/filepath"
	"time"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/example/foo-operator/test/framework"
)

// Run runs a command in dir (see framework.Run) and fails the spec, with its output, if it
// fails.
func Run(dir string, stdin io.Reader, name string, args ...string) string {
	ginkgo.GinkgoHelper()
	out, err := framework.Run(dir, stdin, nil, name, args...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return out
}

// FreePort is a TCP port free on the loopback interface.
func FreePort() int {
	ginkgo.GinkgoHelper()
	port, err := framework.FreePort()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return port
}

// BuildManager builds the operator from the repository into dir and returns its path.
func BuildManager(dir string) string {
	ginkgo.GinkgoHelper()
	bin := filepath.Join(dir, "manager")
	Run(framework.Root(), nil, "go", "build", "-o", bin, ".")
	return bin
}

// Start runs a command in the background until the spec (or, in a BeforeAll or BeforeSuite,
// the container or suite) ends, its output in name.log of dir, and stops it then as the
// kubelet would (SIGTERM, SIGKILL after 30 s).
func Start(dir, name string, env []string, command string, args ...string) *framework.Process {
	ginkgo.GinkgoHelper()
	p, err := framework.Start(filepath.Join(dir, name+".log"), env, command, args...)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	ginkgo.DeferCleanup(func() {
		p.Stop(30 * time.Second)
		AttachLogOnFailure(name, p)
	})
	return p
}

// AttachLogOnFailure adds the process's log to the report of the current spec if it failed.
func AttachLogOnFailure(name string, p *framework.Process) {
	if ginkgo.CurrentSpecReport().Failed() {
		ginkgo.AddReportEntry(name+" log", p.Log())
	}
}

// Clients are a controller-runtime client of cfg, with client-go's kinds and those
// addToScheme adds, and a clientset.
func Clients(cfg *rest.Config, addToScheme ...func(*runtime.Scheme) error) (client.Client, *kubernetes.Clientset) {
	ginkgo.GinkgoHelper()
	scheme := runtime.NewScheme()
	for _, add := range append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme}, addToScheme...) {
		gomega.Expect(add(scheme)).To(gomega.Succeed())
	}
	k8s, err := client.New(cfg, client.Options{Scheme: scheme})
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	clientset, err := kubernetes.NewForConfig(cfg)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return k8s, clientset
}

// LeaderElectionLease is framework.LeaderElectionLease, failing the spec on an error.
func LeaderElectionLease() string {
	ginkgo.GinkgoHelper()
	name, err := framework.LeaderElectionLease()
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return name
}
