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
// processes with a token of that service account, bound to the RBAC config/default ships.
// The figures go to the report CHAOS_REPORT names (docs/reliability.md in make test-chaos).
package chaos

import (
	"context"
	"encoding/base64"
	"encoding/json"
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
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

const (
	operatorNamespace = "foo-operator-system"
	serviceAccount    = "foo-operator-controller-manager"
	operatorUser      = "system:serviceaccount:" + operatorNamespace + ":" + serviceAccount
)

var (
	root       = mustAbs("../..") // the repository, absolute: commands run there
	clusterDir = filepath.Join(root, ".kwok-chaos")
	work       string // the suite's scratch directory
	managerBin string // the operator, built once
	kubeconfig string // a token of the operator's service account, for kubectl auth can-i
	cfg        *rest.Config
	k8s        client.Client
	clientset  kubernetes.Interface
	figures    report
)

func TestChaos(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(5 * time.Minute)
	SetDefaultEventuallyPollingInterval(time.Second)
	RunSpecs(t, "chaos suite")
}

var _ = Describe("The operator", Ordered, func() {
	Context("under faults", faultSpecs)
	Context("through control plane outages", outageSpecs)
	Context("cut off from the API server", partitionSpecs)
	Context("given hostile and odd input", inputSpecs)
	Context("as a security boundary", securitySpecs)
	Context("under load", loadSpecs)
})

var _ = BeforeSuite(func() {
	work = GinkgoT().TempDir()
	By("building the operator")
	managerBin = filepath.Join(work, "manager")
	run(root, nil, "go", "build", "-o", managerBin, ".")

	By("starting a local cluster of the suite's own, with an audit log")
	Expect(os.Setenv("LOCAL_CLUSTER_DIR", clusterDir)).To(Succeed())
	Expect(os.Setenv("LOCAL_CLUSTER_AUDIT_POLICY", mustAbs("audit-policy.yaml"))).To(Succeed())
	Expect(os.Setenv("LOCAL_CLUSTER_METRICS_SERVER", "false")).To(Succeed()) // no HPA here; its scrapes of thousands of pods would only add load
	Expect(os.Setenv("LOCAL_CLUSTER_NODE_PODS", "12000")).To(Succeed())
	run(root, nil, "hack/local-cluster.sh", "down")
	run(root, nil, "hack/local-cluster.sh", "up")
	DeferCleanup(func() { run(root, nil, "hack/local-cluster.sh", "down") })
	readClusterComponents()

	var err error
	cfg, err = clientcmd.BuildConfigFromFlags("", filepath.Join(clusterDir, "kubeconfig"))
	Expect(err).NotTo(HaveOccurred())
	cfg.QPS, cfg.Burst = 200, 400 // the suite creates a thousand Foos at once
	scheme := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(scheme))
	utilruntime.Must(samplev1alpha1.AddToScheme(scheme))
	k8s, err = client.New(cfg, client.Options{Scheme: scheme})
	Expect(err).NotTo(HaveOccurred())
	clientset, err = kubernetes.NewForConfig(cfg)
	Expect(err).NotTo(HaveOccurred())

	By("installing what config/default ships (CRD, RBAC, the operator's Deployment) into a namespace that enforces Pod Security restricted")
	Expect(k8s.Create(ctx(), restrictedNamespace(operatorNamespace))).To(Succeed())
	manifests := run(root, nil, "bin/kustomize", "build", "config/default")
	run(root, strings.NewReader(manifests), "bin/kubectl", "--kubeconfig", filepath.Join(clusterDir, "kubeconfig"), "apply", "--server-side", "-f", "-")
	run(root, nil, "bin/kubectl", "--kubeconfig", filepath.Join(clusterDir, "kubeconfig"), "wait", "--for=condition=Established", "crd/foos.samplecontroller.example.com")
	memoryLimit = shippedMemoryLimit(manifests)

	kubeconfig, err = identity("operator", cfg.Host)
	Expect(err).NotTo(HaveOccurred())
})

var _ = AfterSuite(func() {
	if path := os.Getenv("CHAOS_REPORT"); path != "" {
		Expect(figures.write(path)).To(Succeed())
	}
})

// replica is the operator running as a local process.
type replica struct {
	name string // its binary's name, which names its token (identity)
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	// started is when the process started.
	started time.Time
	// exited is when the process exited; read it after done is closed.
	exited time.Time
}

// startReplica runs the operator under its service account with leader election, as the
// Deployment config/default ships runs it, until the spec ends. args follow (and override)
// the defaults.
func startReplica(name string, args ...string) *replica {
	GinkgoHelper()
	r, err := launch(name, args...)
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(func() {
		r.shutdown()
		attachLogIfFailed(r)
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
	r := &replica{name: name, log: filepath.Join(work, fmt.Sprintf("%s-%d.log", name, time.Now().UnixNano())), done: make(chan struct{})}
	logFile, err := os.Create(r.log)
	if err != nil {
		return nil, err
	}
	defaults := []string{"--kubeconfig=" + kubeconfig, "--leader-elect", "--leader-election-namespace=" + operatorNamespace,
		"--metrics-bind-address=0", "--health-probe-bind-address=0"}
	r.cmd = exec.Command(bin, append(defaults, args...)...)
	r.cmd.Env = append(os.Environ(), "MEMORY_LIMIT="+strconv.FormatInt(memoryLimit.Value(), 10))
	r.cmd.Stdout, r.cmd.Stderr = logFile, logFile
	if err := r.cmd.Start(); err != nil {
		logFile.Close()
		return nil, err
	}
	r.started = time.Now()
	go func() {
		_ = r.cmd.Wait()
		r.exited = time.Now()
		logFile.Close()
		close(r.done)
	}()
	return r, nil
}

// shutdown stops the replica as the kubelet stops a pod: SIGTERM, SIGKILL after 30 s.
func (r *replica) shutdown() {
	r.signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.signal(syscall.SIGKILL)
		<-r.done
	}
}

// attachLogIfFailed adds the replica's log to the report of a failed spec.
func attachLogIfFailed(r *replica) {
	if CurrentSpecReport().Failed() {
		raw, _ := os.ReadFile(r.log)
		AddReportEntry(r.name+" log", string(raw))
	}
}

func (r *replica) signal(sig syscall.Signal) { _ = r.cmd.Process.Signal(sig) }

// stop sends sig and returns when the process exited.
func (r *replica) stop(sig syscall.Signal) time.Time {
	GinkgoHelper()
	r.signal(sig)
	Eventually(r.done).WithTimeout(time.Minute).Should(BeClosed())
	return r.exited
}

// leads reports whether the replica acquired the leader Lease (client-go's leader election
// logs it).
func (r *replica) leads() bool {
	raw, err := os.ReadFile(r.log)
	return err == nil && strings.Contains(string(raw), "Successfully acquired lease")
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
	token, err := createToken(ns, name)
	Expect(err).NotTo(HaveOccurred())
	return token
}

func createToken(ns, name string) (string, error) {
	token, err := clientset.CoreV1().ServiceAccounts(ns).CreateToken(ctx(), name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return token.Status.Token, nil
}

// identities are the replicas' credentials, by replica name: every replica of a name (a
// supervised one restarted, as a pod's containers) uses one token of the operator's service
// account, whose ID the audit log records with each request. The user agent cannot tell
// replicas apart: the operator sends its own, whatever its binary is called.
var identities = struct {
	sync.Mutex
	kubeconfig, credential map[string]string
}{kubeconfig: map[string]string{}, credential: map[string]string{}}

// identity returns the kubeconfig of the replicas called name: a token of their own for the
// API server at server, made on the first call for that name (later calls return it,
// whatever their server).
func identity(name, server string) (string, error) {
	identities.Lock()
	defer identities.Unlock()
	if path, ok := identities.kubeconfig[name]; ok {
		return path, nil
	}
	token, err := createToken(operatorNamespace, serviceAccount)
	if err != nil {
		return "", err
	}
	id, err := credentialID(token)
	if err != nil {
		return "", err
	}
	path, err := writeKubeconfig(name, server, token)
	if err != nil {
		return "", err
	}
	identities.kubeconfig[name], identities.credential[name] = path, id
	return path, nil
}

// credentialOf is how the audit log names the token of the replicas called name.
func credentialOf(name string) string {
	identities.Lock()
	defer identities.Unlock()
	return identities.credential[name]
}

// credentialID is the ID kube-apiserver records for a service account token in its audit
// events (user.extra "authentication.kubernetes.io/credential-id"): its JWT ID.
func credentialID(token string) (string, error) {
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		return "", fmt.Errorf("a service account token has 3 parts, not %d", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return "", err
	}
	var claims struct {
		JTI string `json:"jti"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil || claims.JTI == "" {
		return "", fmt.Errorf("no jti in the token's claims %s: %v", payload, err)
	}
	return "JTI=" + claims.JTI, nil
}

// writeKubeconfig writes a kubeconfig of the cluster's API server at server with a bearer
// token and returns its path.
func writeKubeconfig(name, server, token string) (string, error) {
	path := filepath.Join(work, name+".kubeconfig")
	return path, clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{"chaos": {Server: server, CertificateAuthorityData: cfg.CAData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{name: {Token: token}},
		Contexts:       map[string]*clientcmdapi.Context{"chaos": {Cluster: "chaos", AuthInfo: name}},
		CurrentContext: "chaos",
	}, path)
}

// restrictedNamespace is a namespace that enforces Pod Security restricted.
func restrictedNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce":         "restricted",
		"pod-security.kubernetes.io/enforce-version": "latest",
	}}}
}

// run runs a command in dir, with stdin, and fails the spec, with its output, if it fails.
func run(dir string, stdin *strings.Reader, name string, args ...string) string {
	GinkgoHelper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	if stdin != nil {
		cmd.Stdin = stdin
	}
	out, err := cmd.Output()
	var stderr []byte
	if exit, ok := err.(*exec.ExitError); ok {
		stderr = exit.Stderr
	}
	Expect(err).NotTo(HaveOccurred(), "%s %v:\n%s%s", name, args, out, stderr)
	return string(out)
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

func (r *report) write(path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Reliability and security\n\nRun of `make test-chaos` on %s (commit %s): the operator as local processes under its service account\n",
		time.Now().UTC().Format("2006-01-02"), commit())
	b.WriteString("and the RBAC `config/default` ships, on a local cluster (kwok with the real kube-apiserver, kube-controller-manager\n")
	b.WriteString("and kube-scheduler). Writes are counted from kube-apiserver's audit log, per replica by user agent.\n\n")
	if short() {
		b.WriteString("This is the short version (CHAOS_SHORT): 30 s outages only, 1,000 Foos of load.\n\n")
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

func ctx() context.Context { return context.Background() }

func mustAbs(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		panic(err)
	}
	return abs
}
