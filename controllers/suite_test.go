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

package controllers

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/yaml"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	// +kubebuilder:scaffold:imports
)

// The envtest suite runs the real manager against a real kube-apiserver and etcd (built by
// `make envtest`; KUBEBUILDER_ASSETS points at them). envtest runs no controller-manager:
// tests set Deployment status themselves and assert ownerReferences rather than garbage
// collection.

var (
	testEnv   *envtest.Environment
	k8sClient client.Client // direct, as admin: reads the API server, never the manager's cache
	mgrCache  cache.Cache   // the manager's cache, to check what it holds
	// reconciler is the manager's reconciler, for specs that run one of its steps directly.
	reconciler *FooReconciler
	requests   = &requestLog{}
	// clientLimitBinds has the reconciler find no tokens to spare under a client limit.
	clientLimitBinds atomic.Bool
)

const (
	// conflictRecheck and maxConflictRecheck are the conflict recheck bounds in the suite,
	// short so that specs waiting for a freed name stay quick.
	conflictRecheck    = time.Second
	maxConflictRecheck = 8 * time.Second
	// progressReportDelay is the progress report delay in the suite: envtest runs no
	// Deployment controller, so every rollout is reported after it.
	progressReportDelay = 2 * time.Second
	// maxReportedRollouts is the bound of reports in progress in the suite: more Foos than
	// any spec but the mass rollout's creates at once.
	maxReportedRollouts = 30

	// The operator's identity, as config/default names it.
	operatorNamespace      = "foo-operator-system"
	operatorServiceAccount = "foo-operator-controller-manager"
)

// ctx is the context of the specs' requests.
var ctx = context.Background()

func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	SetDefaultEventuallyTimeout(20 * time.Second)
	SetDefaultEventuallyPollingInterval(100 * time.Millisecond)
	SetDefaultConsistentlyDuration(3 * time.Second)
	SetDefaultConsistentlyPollingInterval(200 * time.Millisecond)
	RunSpecs(t, "Controllers Suite")
}

var _ = BeforeSuite(func() {
	logf.SetLogger(zap.New(zap.WriteTo(GinkgoWriter), zap.UseDevMode(true)))
	// client-go's scheme, which holds the built-in kinds, and the project's APIs
	// (`operator-sdk create api` adds its own at the marker: hack/scaffold.sh).
	err := samplev1alpha1.AddToScheme(scheme.Scheme)
	Expect(err).NotTo(HaveOccurred())
	// +kubebuilder:scaffold:scheme

	// The admission plugins of production clusters (hack/kwokctl.yaml) next to
	// kube-apiserver's defaults, ServiceAccount included (envtest turns it off).
	apiServer := &envtest.APIServer{}
	apiServer.Configure().
		Disable("disable-admission-plugins").
		Set("enable-admission-plugins", admissionPlugins()...)
	testEnv = &envtest.Environment{
		ControlPlane:          envtest.ControlPlane{APIServer: apiServer},
		CRDDirectoryPaths:     []string{filepath.Join("..", "config", "crd", "bases")},
		ErrorIfCRDPathMissing: true,
		// A policy engine's mutating webhooks, served below by this process.
		WebhookInstallOptions: envtest.WebhookInstallOptions{
			MutatingWebhooks: []*admissionregistrationv1.MutatingWebhookConfiguration{policyWebhooks()},
		},
	}
	cfg, err := testEnv.Start()
	Expect(err).NotTo(HaveOccurred(), "start envtest: run the tests with `make test`, which builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS")
	DeferCleanup(testEnv.Stop)
	serveWebhooks()

	k8sClient, err = client.New(cfg, client.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())

	// The manager runs as the operator's service account, bound to exactly the role
	// `make manifests` generates, and its requests go through a transport that logs them.
	mgrCfg := operatorConfig()
	mgrCfg.Wrap(requests.wrap)
	// Higher than a production client's 20/s: some specs create a thousand Foos.
	mgrCfg.QPS, mgrCfg.Burst = 500, 1000
	mgrCfg.UserAgent = FieldManager // as main.go sets it
	mgr, err := ctrl.NewManager(mgrCfg, ctrl.Options{
		Scheme:                 scheme.Scheme,
		Cache:                  cache.Options{ByObject: CachedObjects()}, // as main.go
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	})
	Expect(err).NotTo(HaveOccurred())
	mgrCache = mgr.GetCache()
	clientset, err := kubernetes.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
	Expect(err).NotTo(HaveOccurred())

	reconciler = &FooReconciler{
		Client:                     mgr.GetClient(),
		Deployments:                clientset.AppsV1(),
		APIReader:                  mgr.GetAPIReader(),
		Recorder:                   mgr.GetEventRecorder("foo-operator"),
		DefaultImage:               testImage,
		ConflictRecheckInterval:    conflictRecheck,
		MaxConflictRecheckInterval: maxConflictRecheck,
		ProgressReportDelay:        progressReportDelay,
		MaxReportedRollouts:        maxReportedRollouts,
		SpareTokens:                func() bool { return !clientLimitBinds.Load() },
	}
	Expect(reconciler.SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: 2})).To(Succeed())
	Expect(RegisterMetrics(mgr.GetCache(), mgr.Elected())).To(Succeed())

	runUntilCleanup(mgr.Start)
})

// runUntilCleanup runs start (a manager's or a server's Start) in the background until the
// spec, or the suite, ends.
func runUntilCleanup(start func(context.Context) error) {
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer GinkgoRecover()
		defer close(done)
		Expect(start(runCtx)).To(Succeed())
	}()
	DeferCleanup(func() {
		stop()
		<-done
	})
}

// admissionPlugins are the admission plugins hack/kwokctl.yaml enables on kube-apiserver.
func admissionPlugins() []string {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join("..", "hack", "kwokctl.yaml"))
	Expect(err).NotTo(HaveOccurred())
	var conf struct {
		ComponentsPatches []struct {
			Name      string
			ExtraArgs []struct{ Key, Value string }
		}
	}
	Expect(yaml.Unmarshal(raw, &conf)).To(Succeed())
	for _, c := range conf.ComponentsPatches {
		for _, a := range c.ExtraArgs {
			if c.Name == "kube-apiserver" && a.Key == "enable-admission-plugins" {
				return strings.Split(a.Value, ",")
			}
		}
	}
	Fail("hack/kwokctl.yaml enables no admission plugins on kube-apiserver")
	return nil
}

// operatorConfig is a client configuration of the operator's service account, bound to the
// ClusterRole in config/rbac/role.yaml, as `make deploy` and an AllNamespaces OLM install
// bind it.
func operatorConfig() *rest.Config {
	GinkgoHelper()
	raw, err := os.ReadFile(filepath.Join("..", "config", "rbac", "role.yaml"))
	Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.ClusterRole{}
	Expect(yaml.UnmarshalStrict(raw, role)).To(Succeed())
	create(ctx, role)
	create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: operatorNamespace}})
	sa := create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: operatorServiceAccount, Namespace: operatorNamespace}})
	create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "foo-operator-manager-rolebinding"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa.Name, Namespace: sa.Namespace}},
	})
	return serviceAccountConfig(sa)
}

// serviceAccountConfig is a client configuration that authenticates as sa, with a token
// of an hour.
func serviceAccountConfig(sa *corev1.ServiceAccount) *rest.Config {
	GinkgoHelper()
	token := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}
	Expect(k8sClient.SubResource("token").Create(context.Background(), sa, token)).To(Succeed())
	cfg := rest.AnonymousClientConfig(testEnv.Config)
	cfg.BearerToken = token.Status.Token
	return cfg
}

// requestLog logs the requests of the manager: method and URL path. The ones refused (a
// Conflict, say) are also written to GinkgoWriter, which a failed spec prints.
type requestLog struct {
	mu  sync.Mutex
	log []string
}

func (l *requestLog) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		entry := req.Method + " " + req.URL.Path
		if req.URL.Query().Get("watch") == "true" {
			entry = "WATCH " + req.URL.Path
		}
		l.mu.Lock()
		l.log = append(l.log, entry)
		l.mu.Unlock()
		resp, err := rt.RoundTrip(req)
		if err == nil && resp.StatusCode >= http.StatusBadRequest {
			GinkgoWriter.Printf("%s %s answered %d\n", time.Now().Format(time.StampMilli), entry, resp.StatusCode)
		}
		return resp, err
	})
}

func (l *requestLog) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.log)
}

// since returns the requests made after the first n whose method is one of methods.
func (l *requestLog) since(n int, methods ...string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, entry := range l.log[n:] {
		if slices.Contains(methods, strings.SplitN(entry, " ", 2)[0]) {
			out = append(out, entry)
		}
	}
	return out
}

// writesSince returns the write requests (POST, PUT, PATCH, DELETE) made after the first n
// requests.
func (l *requestLog) writesSince(n int) []string {
	return l.since(n, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete)
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
