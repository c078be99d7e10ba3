//go:build chaos

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

// Package chaos holds the reliability and security suite (make test-chaos): faults the
// operator must survive and permissions it must keep, on a local control plane (kwok with
// the real kube-apiserver, kube-controller-manager and kube-scheduler) whose audit log
// records every request of the operator's service account. The operator runs as local
// processes with a token of that service account, bound to the RBAC config/default ships;
// the load runs on a cluster of its own (loadCluster), where it is config/default's
// container on a real node, under the shipped memory limit.
// The figures go to the report CHAOS_REPORT names (docs/reliability.md in make test-chaos).
package chaos

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

const (
	operatorNamespace = "foo-operator-system"
	serviceAccount    = suite.OperatorServiceAccount
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":" + serviceAccount
)

var (
	root = framework.Root() // commands run there
	// cluster is the suite's own, with an audit log, no metrics-server (no HPA here; its
	// scrapes of thousands of pods would only add load) and room for the load's pods.
	cluster = &framework.Cluster{Dir: filepath.Join(root, ".kwok-chaos"), AuditPolicy: framework.AuditPolicyFile(),
		NoMetricsServer: true, NodePods: 12000}
	suiteCtx   context.Context // done when the suite ends
	work       string          // the suite's scratch directory
	managerBin string          // the operator, built once
	kubeconfig string          // a token of the operator's service account, for kubectl auth can-i
	asOperator client.Client   // a client with that token: what the API server answers the operator
	// env is the cluster with its admin's clients, which the helpers of test/framework/suite
	// act on; cfg, k8s and clientset are its.
	env       *suite.Env
	cfg       *rest.Config
	k8s       client.Client
	clientset kubernetes.Interface
	figures   report
)

func TestChaos(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(5 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "chaos suite")
}

// Slow marks the scenarios CI leaves to the full suite (make test-chaos without
// CHAOS_SHORT), to keep .ci/run within its time: the crash loop, the load, two of the four
// 30 s outages and the partition of a lone replica.
var Slow = Label("slow")

var _ = Describe("The operator", Ordered, func() {
	Context("under faults", faultSpecs)
	Context("through control plane outages", outageSpecs)
	Context("cut off from the API server", partitionSpecs)
	Context("given hostile and odd input", inputSpecs)
	Context("as a security boundary", securitySpecs)
	Context("under load", Slow, loadSpecs)
})

var _ = BeforeSuite(func() {
	var cancel context.CancelFunc
	suiteCtx, cancel = context.WithCancel(context.Background())
	DeferCleanup(cancel)
	work = GinkgoT().TempDir()
	By("building the operator")
	managerBin = suite.BuildManager(work)

	By("starting a local cluster of the suite's own")
	env = suite.StartEnv(cluster, suite.EnvOptions{Fresh: true, Schemes: []func(*runtime.Scheme) error{samplev1alpha1.AddToScheme}}) // fresh: the audit log starts empty
	cfg, k8s, clientset = env.Config, env.Client, env.Clientset
	readClusterComponents()

	By("installing what config/default ships (CRD, RBAC, the operator's Deployment) into a namespace that enforces Pod Security restricted")
	env.CreateNamespace(operatorNamespace, true)
	manifests := suite.Run(root, nil, "bin/kustomize", "build", "config/default")
	suite.Run(root, strings.NewReader(manifests), "bin/kubectl", "--kubeconfig", cluster.Kubeconfig(), "apply", "--server-side", "-f", "-")
	suite.Run(root, nil, "bin/kubectl", "--kubeconfig", cluster.Kubeconfig(), "wait", "--for=condition=Established", "crd/"+suite.FooCRD)
	manager := managerContainer(manifests)
	memoryLimit, shippedMemoryRequest = *manager.Resources.Limits.Memory(), *manager.Resources.Requests.Memory()

	var err error
	kubeconfig, err = identity("operator", cfg.Host)
	Expect(err).NotTo(HaveOccurred())
	operatorCfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	Expect(err).NotTo(HaveOccurred())
	asOperator, _ = suite.Clients(operatorCfg, samplev1alpha1.AddToScheme)
})

// The report is written only by a run whose every spec passed: a failed one leaves the
// report of the last good run in place.
var _ = ReportAfterSuite("the report", func(r Report) {
	if path := os.Getenv("CHAOS_REPORT"); path != "" && r.SuiteSucceeded {
		figures.add("The suite", fmt.Sprintf("replicas' tokens replaced by a new one (%v tokens, rotated at 80 %%)", tokenLifetime), rotations())
		Expect(figures.write(path, r.RunTime)).To(Succeed())
	}
})

// replica is the operator running as a local process.
type replica struct {
	name string // its binary's name, which names its token (identity)
	*framework.Process
}

// startReplica runs the operator under its service account with leader election, as the
// Deployment config/default ships runs it, until the spec ends. args follow (and override)
// the defaults.
func startReplica(name string, args ...string) *replica {
	GinkgoHelper()
	r, err := launch(name, args...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		r.Stop(30 * time.Second)
		suite.AttachLogOnFailure(r.name, r.Process)
	})
	return r
}

// launch starts a replica; it is safe to call from any goroutine.
func launch(name string, args ...string) (*replica, error) {
	kubeconfig, err := identity(name, cfg.Host)
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(work, name)
	if err := os.Link(managerBin, bin); err != nil && !os.IsExist(err) {
		return nil, err
	}
	defaults := []string{"--kubeconfig=" + kubeconfig, "--leader-elect", "--leader-election-namespace=" + operatorNamespace,
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}
	// A pod's name, UID and namespace, as config/manager passes them: the leader election
	// identity, which every replica of a name keeps across restarts, as a pod's containers do.
	env := []string{"MEMORY_LIMIT=" + strconv.FormatInt(memoryLimit.Value(), 10), "POD_NAME=" + name, "POD_UID=" + podUID(name), "POD_NAMESPACE=" + operatorNamespace}
	p, err := framework.Start(filepath.Join(work, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano())), env, bin, append(defaults, args...)...)
	if err != nil {
		return nil, err
	}
	return &replica{name: name, Process: p}, nil
}

// stop sends sig and returns when the process exited.
func (r *replica) stop(sig syscall.Signal) time.Time {
	GinkgoHelper()
	r.Signal(sig)
	Eventually(r.Done).WithTimeout(time.Minute).Should(BeClosed())
	return r.Exited
}

// leads reports whether the replica acquired the leader Lease (client-go's leader election
// logs it).
func (r *replica) leads() bool {
	return strings.Contains(r.Log(), "Successfully acquired lease")
}

// leaderOf waits until one of the replicas leads, and returns it and the other.
func leaderOf(a, b *replica) (leader, follower *replica) {
	GinkgoHelper()
	Eventually(func() bool { return a.leads() || b.leads() }).WithTimeout(time.Minute).Should(BeTrue(), "a replica acquires the Lease")
	Expect(a.leads() && b.leads()).To(BeFalse(), "both replicas lead")
	if a.leads() {
		return a, b
	}
	return b, a
}

// tokenOf is a token of a service account.
func tokenOf(ns, name string) string {
	GinkgoHelper()
	token, err := framework.Token(context.Background(), clientset, ns, name)
	Expect(err).NotTo(HaveOccurred())
	return token
}

// identities are the replicas' credentials, by replica name: every replica of a name (a
// supervised one restarted, as a pod's containers) uses one token file of the operator's
// service account, rotated as the kubelet rotates a pod's, and the audit log records the ID
// of the token with each request. The user agent cannot tell replicas apart: the operator
// sends its own, whatever its binary is called.
var identities = struct {
	sync.Mutex
	kubeconfig, uid map[string]string
	token           map[string]*framework.RotatedToken
}{kubeconfig: map[string]string{}, uid: map[string]string{}, token: map[string]*framework.RotatedToken{}}

// tokenLifetime is the lifetime of the replicas' tokens: the shortest a TokenRequest may
// ask for, so that even the short suite rotates them (at 80 %, 8 minutes).
const tokenLifetime = 10 * time.Minute

// identity returns the kubeconfig of the replicas called name: a token file of their own
// for the API server at server, made on the first call for that name (later calls return
// it, whatever their server).
func identity(name, server string) (string, error) {
	identities.Lock()
	defer identities.Unlock()
	if path, ok := identities.kubeconfig[name]; ok {
		return path, nil
	}
	token, err := framework.NewRotatedToken(suiteCtx, clientset, operatorNamespace, serviceAccount, filepath.Join(work, name+".token"), tokenLifetime)
	if err != nil {
		return "", err
	}
	path := filepath.Join(work, name+".kubeconfig")
	if err := framework.WriteKubeconfig(path, server, cfg.CAData, &clientcmdapi.AuthInfo{TokenFile: token.Path}, ""); err != nil {
		return "", err
	}
	identities.kubeconfig[name], identities.token[name] = path, token
	return path, nil
}

// credentialsOf are how the audit log names the tokens of the replicas called name.
func credentialsOf(name string) []string {
	identities.Lock()
	defer identities.Unlock()
	if t := identities.token[name]; t != nil {
		return t.CredentialIDs()
	}
	return nil
}

// rotations is how many times the replicas' tokens were rotated.
func rotations() int {
	identities.Lock()
	defer identities.Unlock()
	n := 0
	for _, t := range identities.token {
		n += len(t.CredentialIDs()) - 1
	}
	return n
}

// podUID is the UID of the pod the replicas called name stand for, drawn on the first call.
func podUID(name string) string {
	identities.Lock()
	defer identities.Unlock()
	if _, ok := identities.uid[name]; !ok {
		identities.uid[name] = string(uuid.NewUUID())
	}
	return identities.uid[name]
}

// report is the table of figures the suite measured.
type report struct {
	mu   sync.Mutex
	rows [][3]string
}

// add records a figure of a scenario.
func (r *report) add(scenario, figure string, value any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows = append(r.rows, [3]string{scenario, figure, fmt.Sprint(value)})
	GinkgoWriter.Printf("FIGURE %s | %s | %v\n", scenario, figure, value)
}

func (r *report) write(path string, took time.Duration) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reliability and security\n\nRun of `make test-chaos` on %s (commit %s), every spec passed, in %v: the operator as local processes\n",
		time.Now().UTC().Format("2006-01-02"), commit(), took.Round(time.Second))
	b.WriteString("under its service account and the RBAC `config/default` ships, on a local cluster (kwok with the real kube-apiserver,\n")
	b.WriteString("kube-controller-manager and kube-scheduler). Requests are counted from kube-apiserver's audit log, per replica by the token it runs with.\n")
	b.WriteString("The load (scenarios 7 and 8) runs on a cluster of its own: the operator as config/default deploys it, a container on a real node\n")
	b.WriteString("(kubelet and containerd) under its shipped memory limit, and the operands on a simulated node beside it.\n\n")
	if short() {
		b.WriteString("This is the short version (CHAOS_SHORT): 30 s outages and partitions only; make test-chaos CHAOS_SHORT=1 leaves out the specs labelled slow.\n\n")
	}
	b.WriteString("| scenario | figure | value |\n|---|---|---|\n")
	for _, row := range r.rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", row[0], row[1], row[2])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// commit is the commit measured, marked when the working tree has changes to it.
func commit() string {
	out, err := exec.Command("git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	dirty, _ := exec.Command("git", "-C", root, "status", "--porcelain", "--untracked-files=no").Output()
	if len(dirty) > 0 {
		return strings.TrimSpace(string(out)) + " with uncommitted changes"
	}
	return strings.TrimSpace(string(out))
}
