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

// Package node runs what the operator's users run, on a local cluster whose node runs
// containers (hack/real-node.sh): `operator-sdk run bundle` and `run bundle-upgrade`, an
// install and upgrade from a catalog image behind an egress proxy, the upgrade graph, a
// release bundle pinned by digest, OLM v1, `operator-sdk scorecard`, and the operand
// serving HTTP and scaled by a HorizontalPodAutoscaler on real CPU usage. The operator,
// bundle and catalog images are built from the project's Dockerfiles. Run it with
// `make test-e2e` (root: containerd, the kubelet and iptables need it).
package node

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	operatorsv1 "github.com/operator-framework/api/pkg/operators/v1"
	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

const (
	csvV1 = "foo-operator.v0.1.0"
	csvV2 = "foo-operator.v0.2.0"
	csvV3 = "foo-operator.v0.3.0"
	// operandV2 is v0.2.0's operand (RELATED_IMAGE_NGINX): its page names its tag, so an
	// upgraded Foo is seen serving it.
	operandV2 = "docker.io/nginxinc/nginx-unprivileged:1.29.1-alpine"
	// publishedOperatorV1 is the operator image config/manager names: this project's own.
	publishedOperatorV1 = "quay.io/example/foo-operator:v0.1.0"
	// v0.3.0, for the upgrade graph only, is built here under the project's names, which the
	// cluster's registry mirrors. catalogV3 holds v0.1.0 (deprecated), v0.2.0 and v0.3.0,
	// which skips both.
	bundleV3  = "quay.io/example/foo-operator-bundle:v0.3.0"
	catalogV3 = "quay.io/example/foo-operator-catalog:v0.3.0"
	// deprecationV1 is catalogV3's deprecation message for v0.1.0.
	deprecationV1 = "foo-operator v0.1.0 is deprecated: upgrade to v0.3.0"
)

var (
	root      = framework.Root()
	cluster   = &framework.Cluster{Dir: filepath.Join(root, ".kwok-node"), RealNode: true}
	k8s       client.Client
	clientset *kubernetes.Clientset
	registry  string // host:port of the cluster's registry, the mirror of public registries
	work      string
	// users is a user's registry: this machine's address under a port, a CA and an org of
	// its own, which the node trusts and nothing mirrors. make release publishes v0.1.0 and
	// v0.2.0 there (IMAGE_TAG_BASE users.Host/acme/foo-operator), and every workflow but the
	// upgrade graph installs those images.
	users *framework.Registry
	// hostCAs is what clients on the host trust (SSL_CERT_FILE): the host's CAs, the mirror's
	// and the user's registry's.
	hostCAs string
	// The images make release published.
	operatorV1, operatorV2, bundleV1, bundleV2, catalogV1, catalogV2 string
	// releaseV1 is make release's directory for v0.1.0 (its bundle/ and catalog/).
	releaseV1 string
)

func TestNode(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(3 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "real node suite")
}

var _ = BeforeSuite(func() {
	work = GinkgoT().TempDir()
	By("checking that this machine can run containers")
	suite.Run(root, nil, "hack/real-node.sh", "check")

	By("starting a local cluster with a real node, and OLM in it")
	Expect(cluster.Up()).To(Succeed())
	DeferCleanup(func() {
		Expect(cluster.Down()).To(Succeed())
		out, err := framework.Run(root, nil, []string{"LOCAL_CLUSTER_DIR=" + cluster.Dir}, "hack/real-node.sh", "leftovers")
		Expect(err).NotTo(HaveOccurred(), "what the real node left behind:\n%s", out)
	})
	Expect(cluster.OLMUp()).To(Succeed())
	cfg, err := cluster.Config()
	Expect(err).NotTo(HaveOccurred())
	k8s, clientset = suite.Clients(cfg, apiextensionsv1.AddToScheme, operatorsv1alpha1.AddToScheme, operatorsv1.AddToScheme, samplev1alpha1.AddToScheme)
	registry, err = cluster.Registry()
	Expect(err).NotTo(HaveOccurred())

	By("starting the user's registry, which the node trusts and nothing mirrors")
	users = startRegistry("users", false)
	hostCAs = filepath.Join(work, "host-cas.crt")
	suite.Run(root, nil, "bash", "-c", `cat "$1" "$2" >"$3"`, "cat", cluster.CABundle(), users.CA, hostCAs)
	base := users.Host + "/acme/foo-operator"
	operatorV1, bundleV1, catalogV1 = base+":v0.1.0", base+"-bundle:v0.1.0", base+"-catalog:v0.1.0"
	operatorV2, bundleV2, catalogV2 = base+":v0.2.0", base+"-bundle:v0.2.0", base+"-catalog:v0.2.0"

	By("releasing v0.1.0 with make release, on a copy of the tree, to the user's registry")
	releaseV1 = release(copyTree("v1"), base, "0.1.0")

	By("releasing v0.2.0 the same way, with a newer operand and its entries in the template's channels")
	v2 := copyTree("v2")
	replaceInFile(filepath.Join(v2, "config", "manager", "manager.yaml"), controllers.DefaultOperandImage, operandV2)
	replaceInFile(filepath.Join(v2, "config", "catalog", "template.yaml"), "  - name: "+csvV1+"\n",
		"  - name: "+csvV1+"\n  - name: "+csvV2+"\n    replaces: "+csvV1+"\n    skipRange: '>=0.1.0 <0.2.0'\n")
	releaseV2 := release(v2, base, "0.2.0")

	began := time.Now()
	By("building bundle v0.3.0 (generated, running v0.2.0's operator) and the catalog of the upgrade graph, v0.1.0 to v0.3.0")
	v3 := filepath.Join(work, "v3")
	generateUpgradeBundle("0.3.0", filepath.Join(v3, "bundle"))
	Expect(cluster.BuildImage(bundleV3, filepath.Join(root, "bundle.Dockerfile"), v3)).To(Succeed())
	catalog := suite.RenderCatalogTemplate(filepath.Join(work, "catalog-v3", "catalog"), []suite.Release{
		{CSV: csvV1, Image: bundleV1, Context: releaseV1}, {CSV: csvV2, Image: bundleV2, Context: releaseV2}, {CSV: csvV3, Image: bundleV3, Context: v3},
	}, map[string]string{csvV1: deprecationV1})
	Expect(cluster.BuildImage(catalogV3, filepath.Join(root, "catalog.Dockerfile"), filepath.Dir(catalog))).To(Succeed())
	AddReportEntry("image builds", time.Since(began).Round(time.Second).String())
})

// generateUpgradeBundle generates the bundle of version into dir, running v0.2.0's operator
// image and operand: config/manager names this project's v0.1.0 (make bundle sets it from IMG).
func generateUpgradeBundle(version, dir string) {
	GinkgoHelper()
	suite.GenerateBundle(version, dir)
	csv := filepath.Join(dir, "manifests", "foo-operator.clusterserviceversion.yaml")
	raw, err := os.ReadFile(csv)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
	Expect(string(raw)).To(ContainSubstring(publishedOperatorV1))
	upgraded := strings.NewReplacer(controllers.DefaultOperandImage, operandV2, publishedOperatorV1, operatorV2).Replace(string(raw))
	Expect(os.WriteFile(csv, []byte(upgraded), 0o644)).To(Succeed())
}
