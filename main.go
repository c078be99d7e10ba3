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

// Command manager runs the Foo operator.
package main

import (
	"cmp"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/client-go/tools/record"
	cliflag "k8s.io/component-base/cli/flag"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/controllers"
	// +kubebuilder:scaffold:imports
)

const (
	// leaseDuration is how long the leader's Lease lasts unrenewed: a waiting replica takes
	// over once it saw no renewal for that long. A leader that cannot renew stops its
	// controllers after a retry period (2 s) and the renew deadline (10 s), plus up to 5 s
	// it spends trying to release the Lease (LeaderElectionReleaseOnCancel; the Lease
	// client's timeout is half the renew deadline): 17 s in the worst case.
	// controller-runtime's default of 15 s would let a new leader start while the old one
	// still runs; 20 s keeps 3 s (test/chaos's partition spec reports the margin).
	leaseDuration = 20 * time.Second
	// renewDeadline is controller-runtime's default, stated because the leader election
	// lock's client takes half of it as its timeout.
	renewDeadline = 10 * time.Second
)

var (
	scheme   = runtime.NewScheme()
	setupLog = ctrl.Log.WithName("setup")
)

func init() {
	// Only the kinds the manager's client, cache and event recorders see: the Deployments
	// (also the related object of events), the Foos, and the leader election Lease (the
	// object of its events). The typed Deployments client and the event broadcaster use
	// client-go's own scheme. All of client-go's kinds would only hold more of the heap.
	utilruntime.Must(appsv1.AddToScheme(scheme))
	utilruntime.Must(coordinationv1.AddToScheme(scheme))
	utilruntime.Must(policyv1.AddToScheme(scheme))
	utilruntime.Must(samplev1alpha1.AddToScheme(scheme))
	// +kubebuilder:scaffold:scheme
}

func main() {
	var (
		metricsAddr             string
		metricsCertDir          string
		metricsCertSecret       string
		secureMetrics           bool
		enableHTTP2             bool
		tlsMinVersion           string
		tlsCipherSuites         []string
		probeAddr               string
		pprofAddr               string
		leaderElect             bool
		leaderElectionNamespace string
		maxConcurrentReconciles int
		watchNamespaces         string
		kubeAPIQPS              float64
		kubeAPIBurst            int
		reconciler              controllers.FooReconciler
	)
	flag.StringVar(&metricsAddr, "metrics-bind-address", ":8443",
		"The address the metrics endpoint binds to: :8443 for HTTPS, :8080 for HTTP, 0 to disable it.")
	flag.StringVar(&metricsCertSecret, "metrics-cert-secret", "",
		"A Secret of the operator's namespace ($POD_NAMESPACE) in which the replicas keep a CA and the metrics server's certificate, which it signs, for the metrics Service's names; it must exist, empty at first. Prometheus reads the CA from it (ca.crt). Not with --metrics-cert-dir.")
	flag.StringVar(&metricsCertDir, "metrics-cert-dir", "",
		"Directory holding tls.crt and tls.key for the metrics server, reloaded when they change; a self-signed certificate when empty.")
	flag.BoolVar(&secureMetrics, "metrics-secure", true,
		"Serve metrics over HTTPS, to clients the API server authenticates and authorizes (get on the /metrics non-resource URL).")
	flag.BoolVar(&enableHTTP2, "enable-http2", false,
		"Allow HTTP/2 on the metrics server. Off by default: HTTP/2 Rapid Reset and Stream Cancellation (CVE-2023-44487, CVE-2023-39325).")
	flag.StringVar(&tlsMinVersion, "tls-min-version", "VersionTLS12",
		"The lowest TLS version the metrics server accepts: "+strings.Join(cliflag.TLSPossibleVersions(), ", ")+".")
	flag.Func("tls-cipher-suites",
		"Comma-separated TLS 1.2 cipher suites the metrics server accepts, by their IANA names (kube-apiserver's --tls-cipher-suites); Go's defaults when unset. TLS 1.3's suites are not configurable.",
		func(s string) error { tlsCipherSuites = strings.Split(s, ","); return nil })
	flag.StringVar(&probeAddr, "health-probe-bind-address", ":8081", "The address the liveness (/healthz) and readiness (/readyz) probes bind to.")
	flag.StringVar(&pprofAddr, "pprof-bind-address", "0",
		"The address Go's profiles (/debug/pprof/) bind to; 0, the default, disables them (make bench reads a heap profile).")
	flag.BoolVar(&leaderElect, "leader-elect", false,
		"Elect a leader among the operator's replicas (Lease "+leaderElectionID+"), so that only one reconciles.")
	flag.StringVar(&leaderElectionNamespace, "leader-election-namespace", "",
		"The namespace of the leader election Lease; the operator's own namespace when empty (required when running outside a cluster).")
	flag.IntVar(&maxConcurrentReconciles, "max-concurrent-reconciles", 8, "How many Foos are reconciled in parallel.")
	flag.StringVar(&watchNamespaces, "watch-namespaces", os.Getenv("WATCH_NAMESPACE"),
		"Comma-separated namespaces whose Foos the operator manages; empty for all. Defaults to $WATCH_NAMESPACE.")
	flag.DurationVar(&reconciler.ConflictRecheckInterval, "conflict-recheck-interval", controllers.DefaultConflictRecheckInterval,
		"How long a Foo whose Deployment name is taken by an object the operator does not manage waits before it first checks whether the name became free (later checks wait as long as the conflict has lasted), the first wait before taking back a field another writer keeps taking, and how often a Deployment whose managed-by label is rewritten is looked at.")
	flag.DurationVar(&reconciler.MaxConflictRecheckInterval, "conflict-recheck-max-interval", controllers.DefaultMaxConflictRecheckInterval,
		"The longest wait between two checks of a Foo whose Deployment name is taken, and between two corrections of a field another writer keeps taking; a field taken again within it after a correction is a contest.")
	flag.DurationVar(&reconciler.ProgressReportDelay, "progress-report-delay", controllers.DefaultProgressReportDelay,
		"How long after changing a Deployment the steps of its rollout are written to the Foo's status; a rollout that completes sooner is reported once.")
	flag.IntVar(&reconciler.MaxReportedRollouts, "progress-report-max-rollouts", controllers.DefaultMaxReportedRollouts,
		"How many Foos that are not Ready may wait on rollouts at once for theirs to be reported in progress; a report that falls due while more wait (a mass rollout) waits for the rollout's end, a problem, or its progress deadline. 0 holds back every such report; negative for no bound.")
	// kube-controller-manager's flag names. No client-side limit by default, as controller-runtime
	// sets it: API Priority and Fairness queues the operator's requests at the API server, and
	// the operator's workers (--max-concurrent-reconciles) bound how many it has in flight.
	flag.Float64Var(&kubeAPIQPS, "kube-api-qps", -1,
		"Requests per second the operator sends to the API server at most, beyond bursts; negative for no client-side limit.")
	flag.IntVar(&kubeAPIBurst, "kube-api-burst", 30,
		"Requests the operator may send in a burst above --kube-api-qps; unused when --kube-api-qps is negative.")
	opts := zap.Options{}
	opts.BindFlags(flag.CommandLine)
	flag.Parse()
	ctrl.SetLogger(newLogger(&opts))

	reconciler.DefaultImage = cmp.Or(os.Getenv("RELATED_IMAGE_NGINX"), controllers.DefaultOperandImage)
	namespaces := splitNamespaces(watchNamespaces)

	flagTLS, err := flagTLSSettings(tlsMinVersion, tlsCipherSuites)
	if err != nil {
		setupLog.Error(err, "Invalid TLS options")
		os.Exit(1)
	}
	// The flags, when given, win; otherwise the cluster's TLS security profile on OpenShift
	// (clusterProfile, added below), the flags' defaults elsewhere.
	metricsTLSSource, followProfile := fixedTLS(flagTLS), secureMetrics && metricsAddr != "0"
	flag.Visit(func(f *flag.Flag) {
		followProfile = followProfile && f.Name != "tls-min-version" && f.Name != "tls-cipher-suites"
	})
	if followProfile {
		metricsTLSSource = &tlsSource{}
	}
	metricsOpts := metricsserver.Options{BindAddress: metricsAddr, SecureServing: secureMetrics, TLSOpts: []func(*tls.Config){metricsTLS(metricsTLSSource, enableHTTP2)}, CertDir: metricsCertDir}
	var certs *certKeeper
	if metricsCertSecret != "" && secureMetrics && metricsAddr != "0" {
		namespace := os.Getenv("POD_NAMESPACE")
		if namespace == "" || metricsCertDir != "" {
			setupLog.Error(errors.New("--metrics-cert-secret needs $POD_NAMESPACE, and excludes --metrics-cert-dir"), "Invalid TLS options")
			os.Exit(1)
		}
		certs = &certKeeper{name: metricsCertSecret, dnsNames: metricsDNSNames(namespace)}
		metricsOpts.TLSOpts = append(metricsOpts.TLSOpts, func(c *tls.Config) { c.GetCertificate = certs.getCertificate })
	}
	if secureMetrics {
		metricsOpts.FilterProvider = metricsAuthFilter
	}

	if limit, ok := softMemoryLimit(os.Getenv("GOMEMLIMIT"), os.Getenv("MEMORY_LIMIT")); ok {
		debug.SetMemoryLimit(limit)
		setupLog.Info("Set the Go runtime's soft memory limit from the container's", "bytes", limit, "containerLimit", os.Getenv("MEMORY_LIMIT"))
	}

	if err := validateClientLimits(kubeAPIQPS, kubeAPIBurst); err != nil {
		setupLog.Error(err, "Invalid client limits")
		os.Exit(1)
	}
	cfg := ctrl.GetConfigOrDie()
	// Every request names the operator: the field manager of writes that name none (the
	// managedFields of a delete that sets finalizers) derives from the user agent, which
	// would otherwise be the binary's name.
	cfg.UserAgent = controllers.FieldManager
	limiter := shareClientLimits(cfg, kubeAPIQPS, kubeAPIBurst)
	leaderRecorder := &deferredRecorder{}
	var leaderLock resourcelock.Interface
	if leaderElect {
		namespace := cmp.Or(leaderElectionNamespace, os.Getenv("POD_NAMESPACE"))
		if leaderLock, err = podLeaderLock(cfg, namespace, os.Getenv("POD_NAME"), os.Getenv("POD_UID"), leaderRecorder); err != nil {
			setupLog.Error(err, "Unable to create the leader election lock")
			os.Exit(1)
		}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                        scheme,
		Cache:                         cacheOptions(namespaces),
		NewCache:                      newCache,
		MapperProvider:                restMapperProvider(scheme),
		Metrics:                       metricsOpts,
		HealthProbeBindAddress:        probeAddr,
		PprofBindAddress:              pprofAddr,
		LeaderElection:                leaderElect,
		LeaderElectionID:              leaderElectionID,
		LeaderElectionNamespace:       leaderElectionNamespace,
		LeaseDuration:                 ptr.To(leaseDuration),
		RenewDeadline:                 ptr.To(renewDeadline),
		LeaderElectionReleaseOnCancel: true,
		// nil outside a pod: controller-runtime's own lock then.
		LeaderElectionResourceLockInterface: leaderLock,
	})
	if err != nil {
		setupLog.Error(err, "Unable to create manager")
		os.Exit(1)
	}
	if leaderLock != nil {
		leaderRecorder.EventRecorder = mgr.GetEventRecorderFor(leaderLock.Identity()) //nolint:staticcheck // client-go's leader election records core/v1 events
	}

	ctx := ctrl.SetupSignalHandler()
	if err := connect(&reconciler, mgr, limiter); err != nil {
		setupLog.Error(err, "Unable to create the reconciler's clients")
		os.Exit(1)
	}
	if err := reconciler.SetupWithManager(ctx, mgr, controller.Options{MaxConcurrentReconciles: maxConcurrentReconciles}); err != nil {
		setupLog.Error(err, "Unable to set up controller", "controller", "foo")
		os.Exit(1)
	}
	if err := errors.Join(controllers.RegisterMetrics(mgr.GetCache(), mgr.Elected()), metrics.Registry.Register(eventsDropped)); err != nil {
		setupLog.Error(err, "Unable to register metrics")
		os.Exit(1)
	}
	if certs != nil {
		core, err := corev1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient())
		if err == nil {
			certs.secrets = core.Secrets(os.Getenv("POD_NAMESPACE"))
			err = mgr.Add(certs)
		}
		if err != nil {
			setupLog.Error(err, "Unable to keep the metrics certificate")
			os.Exit(1)
		}
	}
	if followProfile {
		profile, err := newClusterProfile(mgr, metricsTLSSource, flagTLS)
		if err == nil {
			err = mgr.Add(profile)
		}
		if err != nil {
			setupLog.Error(err, "Unable to follow the cluster's TLS security profile")
			os.Exit(1)
		}
	}
	// +kubebuilder:scaffold:builder
	if err := mgr.AddHealthzCheck("healthz", healthz.Ping); err != nil {
		setupLog.Error(err, "Unable to set up health check")
		os.Exit(1)
	}
	if err := mgr.AddReadyzCheck("readyz", healthz.Ping); err != nil {
		setupLog.Error(err, "Unable to set up ready check")
		os.Exit(1)
	}

	setupLog.Info("Starting manager", "namespaces", namespaces, "defaultImage", reconciler.DefaultImage, "leaderElection", leaderElect)
	// Start returns when SIGTERM or SIGINT cancels ctx, after the running reconciles finish
	// (within the manager's graceful shutdown timeout) and the leader Lease is released.
	if err := mgr.Start(ctx); err != nil {
		setupLog.Error(err, "Manager stopped with an error")
		os.Exit(1)
	}
}

// connect gives r the manager's client and API reader, a Deployments client on the
// manager's configuration, an event recorder whose events wait until no Foo waits for a
// worker (r.Idle), and, under a client limit (limiter not nil), whether its bucket has tokens to
// spare for reports in progress.
func connect(r *controllers.FooReconciler, mgr ctrl.Manager, limiter *bucket) error {
	var err error
	r.Client, r.APIReader = mgr.GetClient(), mgr.GetAPIReader()
	if r.Deployments, err = appsv1client.NewForConfigAndClient(mgr.GetConfig(), mgr.GetHTTPClient()); err != nil {
		return fmt.Errorf("the Deployments client: %w", err)
	}
	recorder, err := eventRecorder(mgr.GetConfig(), mgr.GetHTTPClient(), limiter, r.Idle)
	if err == nil {
		// Stopped with the controller, before the Lease is released.
		err = mgr.Add(recorder)
	}
	if err != nil {
		return fmt.Errorf("the event recorder: %w", err)
	}
	r.Recorder = recorder
	if limiter != nil {
		r.SpareTokens = limiter.spare
	}
	return nil
}

// podLeaderLock is the leader election lock of a replica that runs in a pod, named by the
// pod's name and UID (POD_NAME and POD_UID, from the Downward API) instead of the host name
// and a UUID drawn at every start, as controller-runtime names it. A leader that exited
// because it could not renew its Lease (the API server or etcd down, a partition) and that
// the kubelet started again finds the Lease still its own and renews it as soon as the API
// server answers, instead of waiting for it to expire as a stranger would. Two processes
// never share the name: the kubelet starts a container again only after it exited, and no
// two pods share a UID. nil when the pod is not known: controller-runtime makes its own
// lock then. The Lease is in namespace (--leader-election-namespace, else POD_NAMESPACE).
func podLeaderLock(cfg *rest.Config, namespace, podName, podUID string, recorder resourcelock.EventRecorder) (resourcelock.Interface, error) {
	if podName == "" || podUID == "" {
		return nil, nil
	}
	if namespace == "" {
		return nil, errors.New("POD_NAME and POD_UID are set but not the Lease's namespace: set POD_NAMESPACE or --leader-election-namespace")
	}
	cfg = leaderElectionConfig(cfg)
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	core, err := corev1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	coordination, err := coordinationv1client.NewForConfigAndClient(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	id := podName + "_" + podUID
	return resourcelock.New(resourcelock.LeasesResourceLock, namespace, leaderElectionID,
		core, coordination, resourcelock.ResourceLockConfig{Identity: id, EventRecorder: recorder})
}

// leaderElectionConfig is cfg for the leader election lock's client, as controller-runtime
// configures its lock's: a user agent of its own, and a timeout of half the renew deadline
// (10 s), so that one hung request does not lose the Lease; under the shared client limits
// its requests go ahead of the others (ahead). Outside a pod controller-runtime's lock
// waits in the shared bucket with the rest.
func leaderElectionConfig(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.UserAgent += "/leader-election"
	cfg.Timeout = renewDeadline / 2
	if b, ok := cfg.RateLimiter.(bucket); ok {
		cfg.RateLimiter = ahead{b}
	}
	return cfg
}

// deferredRecorder records the leader election's events with the manager's recorder once
// the manager exists: the lock is made before it, and used only once the manager starts.
type deferredRecorder struct{ record.EventRecorder }

func (r *deferredRecorder) Eventf(obj runtime.Object, eventType, reason, message string, args ...any) {
	if r.EventRecorder != nil {
		r.EventRecorder.Eventf(obj, eventType, reason, message, args...)
	}
}

// memoryLimitShare is the share of the container's memory limit that the Go runtime gets as
// its soft limit (GOMEMLIMIT): the rest is for memory the runtime does not manage, chiefly
// the binary's mapped pages, which docs/benchmarks.md shows in the operator's base RSS.
const memoryLimitShare = 0.85

// softMemoryLimit is the Go runtime's soft memory limit for a container limit of
// containerLimit bytes (MEMORY_LIMIT, from the Downward API), unless GOMEMLIMIT is set,
// which the runtime then applies itself.
func softMemoryLimit(gomemlimit, containerLimit string) (int64, bool) {
	limit, err := strconv.ParseInt(containerLimit, 10, 64)
	if gomemlimit != "" || err != nil || limit <= 0 {
		return 0, false
	}
	return int64(float64(limit) * memoryLimitShare), true
}

// splitNamespaces parses the --watch-namespaces list; empty entries are dropped.
func splitNamespaces(list string) []string {
	var namespaces []string
	for _, ns := range strings.Split(list, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			namespaces = append(namespaces, ns)
		}
	}
	return namespaces
}
