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
	// The images as the bundle and the catalog name them; the registry mirrors their hosts.
	operatorV1 = "quay.io/example/foo-operator:v0.1.0"
	operatorV2 = "quay.io/example/foo-operator:v0.2.0"
	bundleV1   = "quay.io/example/foo-operator-bundle:v0.1.0"
	bundleV2   = "quay.io/example/foo-operator-bundle:v0.2.0"
	bundleV3   = "quay.io/example/foo-operator-bundle:v0.3.0"
	catalogV1  = "quay.io/example/foo-operator-catalog:v0.1.0"
	catalogV2  = "quay.io/example/foo-operator-catalog:v0.2.0"
	// catalogV3 holds v0.1.0 (deprecated), v0.2.0 and v0.3.0, which skips both.
	catalogV3 = "quay.io/example/foo-operator-catalog:v0.3.0"
	// deprecationV1 is catalogV3's deprecation message for v0.1.0.
	deprecationV1 = "foo-operator v0.1.0 is deprecated: upgrade to v0.3.0"
)

var (
	root      = framework.Root()
	cluster   = &framework.Cluster{Dir: filepath.Join(root, ".kwok-node"), RealNode: true}
	k8s       client.Client
	clientset *kubernetes.Clientset
	registry  string // host:port of the cluster's registry
	work      string
	// bundleV2Dir is the generated v0.2.0 bundle.
	bundleV2Dir string
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

	began := time.Now()
	By("building the operator image from the Dockerfile's final stage, as v0.1.0 and v0.2.0")
	Expect(cluster.BuildOperatorImage(operatorV1)).To(Succeed())
	Expect(cluster.BuildOperatorImage(operatorV2)).To(Succeed())

	By("building bundle v0.1.0 (bundle/), and v0.2.0 and v0.3.0 (generated, with a newer operand) from bundle.Dockerfile")
	Expect(cluster.BuildImage(bundleV1, filepath.Join(root, "bundle.Dockerfile"), root)).To(Succeed())
	v2, v3 := filepath.Join(work, "v2"), filepath.Join(work, "v3")
	bundleV2Dir = filepath.Join(v2, "bundle")
	generateUpgradeBundle("0.2.0", bundleV2Dir)
	Expect(cluster.BuildImage(bundleV2, filepath.Join(root, "bundle.Dockerfile"), v2)).To(Succeed())
	generateUpgradeBundle("0.3.0", filepath.Join(v3, "bundle"))
	Expect(cluster.BuildImage(bundleV3, filepath.Join(root, "bundle.Dockerfile"), v3)).To(Succeed())

	By("building catalog v0.1.0 (catalog/), and v0.2.0 and v0.3.0 from the catalog template as make catalog renders it, from catalog.Dockerfile")
	Expect(cluster.BuildImage(catalogV1, filepath.Join(root, "catalog.Dockerfile"), root)).To(Succeed())
	v1Release := suite.Release{CSV: csvV1, Image: bundleV1, Context: root}
	v2Release := suite.Release{CSV: csvV2, Image: bundleV2, Context: v2}
	catalog := suite.RenderCatalogTemplate(filepath.Join(work, "catalog-v2", "catalog"), []suite.Release{v1Release, v2Release}, nil)
	Expect(cluster.BuildImage(catalogV2, filepath.Join(root, "catalog.Dockerfile"), filepath.Dir(catalog))).To(Succeed())
	catalog = suite.RenderCatalogTemplate(filepath.Join(work, "catalog-v3", "catalog"),
		[]suite.Release{v1Release, v2Release, {CSV: csvV3, Image: bundleV3, Context: v3}}, map[string]string{csvV1: deprecationV1})
	Expect(cluster.BuildImage(catalogV3, filepath.Join(root, "catalog.Dockerfile"), filepath.Dir(catalog))).To(Succeed())
	AddReportEntry("image builds", time.Since(began).Round(time.Second).String())
})

// generateUpgradeBundle generates the bundle of version into dir, running v0.2.0's operator
// image and a newer operand than v0.1.0: config/manager names v0.1.0's operator image (make
// bundle sets it from IMG).
func generateUpgradeBundle(version, dir string) {
	GinkgoHelper()
	suite.GenerateBundle(version, dir)
	csv := filepath.Join(dir, "manifests", "foo-operator.clusterserviceversion.yaml")
	raw, err := os.ReadFile(csv)
	Expect(err).NotTo(HaveOccurred())
	Expect(string(raw)).To(ContainSubstring(controllers.DefaultOperandImage))
	Expect(string(raw)).To(ContainSubstring(operatorV1))
	upgraded := strings.NewReplacer(controllers.DefaultOperandImage, operandV2, operatorV1, operatorV2).Replace(string(raw))
	Expect(os.WriteFile(csv, []byte(upgraded), 0o644)).To(Succeed())
}
