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
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync/atomic"
	"time"

	"github.com/openshift/library-go/pkg/crypto"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/watch"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/example/foo-operator/controllers"
)

// The metrics server's certificate, when --metrics-cert-secret names a Secret of the
// operator's namespace: the replicas keep in it a CA and a serving certificate the CA signs,
// for the names of the metrics Service, and serve that certificate. Prometheus verifies it
// with the CA, which the ServiceMonitor reads from the same Secret (ca.crt). The Secret
// ships empty with the operator (config/default, the bundle): the first replica to see it
// fills it. Under OLM an upgrade empties it again (OLM writes a bundle's Secret as the bundle
// has it), and a new CA follows; Prometheus Operator reloads it from the Secret.
const (
	// metricsServiceName is the metrics Service of config/default and the bundle.
	metricsServiceName = "foo-operator-controller-manager-metrics-service"
	// metricsCALifetime and metricsCertLifetime are how long the CA and the serving
	// certificate are valid; metricsCertRenewBefore is how long before it expires the
	// serving certificate is replaced. The CA is replaced once it would expire before a new
	// serving certificate: the only change Prometheus has to reload for.
	metricsCALifetime      = 10 * 365 * 24 * time.Hour
	metricsCertLifetime    = 365 * 24 * time.Hour
	metricsCertRenewBefore = 90 * 24 * time.Hour
	// metricsCertResync is how often a replica looks at an unchanged Secret for renewal.
	metricsCertResync = 12 * time.Hour
)

// The keys of the metrics certificate Secret: those of kubernetes.io/tls Secrets and of
// cert-manager's, so that other tools read it as they expect.
const (
	caCertKey  = "ca.crt"
	caKeyKey   = "ca.key"
	tlsCertKey = corev1.TLSCertKey
	tlsKeyKey  = corev1.TLSPrivateKeyKey
)

// metricsDNSNames are the names a client may reach the metrics Service of namespace by: the
// ServiceMonitor's serverName is the first, the same in every namespace.
func metricsDNSNames(namespace string) []string {
	svc := metricsServiceName
	return []string{svc, svc + "." + namespace, svc + "." + namespace + ".svc", svc + "." + namespace + ".svc.cluster.local"}
}

// metricsCertData is what a metrics certificate Secret holding data must hold at now: data
// itself (changed false) while its CA outlives a new serving certificate and its serving
// certificate is signed by that CA, names exactly dnsNames and has more than
// metricsCertRenewBefore left; otherwise data with a new serving certificate, and a new CA
// when the CA is missing or near its end. Other keys are kept.
func metricsCertData(data map[string][]byte, dnsNames []string, now time.Time) (map[string][]byte, bool, error) {
	out := maps.Clone(data)
	if out == nil {
		out = map[string][]byte{}
	}
	ca, err := crypto.GetCAFromBytes(data[caCertKey], data[caKeyKey])
	caValid := err == nil && now.Add(metricsCertLifetime).Before(ca.Config.Certs[0].NotAfter)
	if !caValid {
		config, err := crypto.MakeSelfSignedCAConfigForDuration("foo-operator-metrics-ca@"+fmt.Sprint(now.Unix()), metricsCALifetime)
		if err != nil {
			return nil, false, err
		}
		if out[caCertKey], out[caKeyKey], err = config.GetPEMBytes(); err != nil {
			return nil, false, err
		}
		ca = &crypto.CA{Config: config, SerialGenerator: &crypto.RandomSerialGenerator{}}
	}
	if caValid && servingValid(data, ca, dnsNames, now) {
		return data, false, nil
	}
	serving, err := ca.MakeServerCertForDuration(sets.New(dnsNames...), metricsCertLifetime)
	if err != nil {
		return nil, false, err
	}
	if out[tlsCertKey], out[tlsKeyKey], err = serving.GetPEMBytes(); err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// servingValid reports whether data's serving certificate is signed by ca, names exactly
// dnsNames and has more than metricsCertRenewBefore left at now.
func servingValid(data map[string][]byte, ca *crypto.CA, dnsNames []string, now time.Time) bool {
	serving, err := crypto.GetTLSCertificateConfigFromBytes(data[tlsCertKey], data[tlsKeyKey])
	if err != nil {
		return false
	}
	leaf := serving.Certs[0]
	return leaf.CheckSignatureFrom(ca.Config.Certs[0]) == nil &&
		slices.Equal(slices.Sorted(slices.Values(leaf.DNSNames)), slices.Sorted(slices.Values(dnsNames))) &&
		now.Add(metricsCertRenewBefore).Before(leaf.NotAfter)
}

// certKeeper is the manager runnable, on every replica, that keeps the metrics certificate
// in the Secret name of its namespace and serves it (getCertificate). It lists and watches
// that one Secret by name, which is all its RBAC allows, and writes it with an update that
// fails when another replica wrote it first; that replica's certificate then arrives by the
// watch. A write that fails otherwise (the API server unavailable, a webhook refusing it)
// is tried again with client-go's per-item backoff (5 ms, doubling, at most 1000 s), as a
// controller's reconcile is: the Secret may not change again for hours. Meanwhile the
// replica serves the stored certificate while it is valid.
type certKeeper struct {
	secrets  corev1client.SecretInterface
	name     string
	dnsNames []string
	current  atomic.Pointer[tls.Certificate]
	// refused is the data of the last write that failed, and the Secret's resourceVersion it
	// was written over: tried again while the Secret stays at that version, rather than a
	// new CA and key pair made at every retry. Only Start's loop reads and writes it.
	refused struct {
		resourceVersion string
		data            map[string][]byte
	}
}

func (*certKeeper) NeedLeaderElection() bool { return false }

// getCertificate is the metrics server's certificate; none until the Secret was read.
func (k *certKeeper) getCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	if c := k.current.Load(); c != nil {
		return c, nil
	}
	return nil, fmt.Errorf("the metrics certificate of Secret %s is not read yet", k.name)
}

// Start keeps the certificate until ctx ends.
func (k *certKeeper) Start(ctx context.Context) error {
	log := ctrl.Log.WithName("metrics-cert").WithValues("secret", k.name)
	byName := fields.OneTermEqualSelector("metadata.name", k.name).String()
	informer := toolscache.NewSharedIndexInformer(&toolscache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = byName
			return k.secrets.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = byName
			return k.secrets.Watch(ctx, o)
		},
	}, &corev1.Secret{}, metricsCertResync, toolscache.Indexers{})
	queue := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
	go func() {
		<-ctx.Done()
		queue.ShutDown()
	}()
	if _, err := informer.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { queue.Add(k.name) },
		UpdateFunc: func(any, any) { queue.Add(k.name) },
	}); err != nil {
		return err
	}
	go informer.Run(ctx.Done())
	if toolscache.WaitForCacheSync(ctx.Done(), informer.HasSynced) && len(informer.GetStore().List()) == 0 {
		log.Error(errors.New("not found"), "The metrics certificate Secret does not exist: the metrics server refuses handshakes until it does; create it empty (config/default and the bundle ship it)")
	}
	for {
		key, shutdown := queue.Get()
		if shutdown || ctx.Err() != nil {
			return nil
		}
		err := k.syncStored(ctx, informer.GetStore())
		if err != nil {
			log.Error(err, "Cannot keep the metrics server's certificate; trying again", "retries", queue.NumRequeues(key))
			queue.AddRateLimited(key)
		} else {
			queue.Forget(key)
		}
		queue.Done(key)
	}
}

// syncStored syncs the Secret in store, the informer's of the one Secret; none when it was
// deleted.
func (k *certKeeper) syncStored(ctx context.Context, store toolscache.Store) error {
	for _, obj := range store.List() {
		if s, ok := obj.(*corev1.Secret); ok {
			return k.sync(ctx, s)
		}
	}
	return nil
}

// sync renews the certificate in s when it must (renewal), and serves what s then holds.
func (k *certKeeper) sync(ctx context.Context, s *corev1.Secret) error {
	data, changed, err := k.renewal(s)
	if err != nil {
		return err
	}
	if changed {
		updated := s.DeepCopy()
		updated.Data = data
		_, err := k.secrets.Update(ctx, updated, metav1.UpdateOptions{FieldManager: controllers.FieldManager})
		k.refused.resourceVersion, k.refused.data = "", nil
		if err != nil {
			if apierrors.IsConflict(err) {
				return nil // another replica wrote it first: its certificate comes by the watch
			}
			k.refused.resourceVersion, k.refused.data = s.ResourceVersion, data
			// The stored certificate, due for renewal, may still be valid: served until
			// the write succeeds, rather than refusing every handshake.
			_ = k.serve(s.Data, time.Now())
			return fmt.Errorf("write Secret %s: %w", k.name, err)
		}
		ctrl.Log.WithName("metrics-cert").Info("Issued the metrics server's certificate", "secret", k.name, "dnsNames", k.dnsNames,
			"newCA", string(data[caCertKey]) != string(s.Data[caCertKey]))
	}
	return k.serve(data, time.Now())
}

// renewal is what s must hold (metricsCertData), and whether that differs from what it
// holds; while s is at the version a write failed over, that write's data.
func (k *certKeeper) renewal(s *corev1.Secret) (map[string][]byte, bool, error) {
	if k.refused.data != nil && k.refused.resourceVersion == s.ResourceVersion {
		return k.refused.data, true, nil
	}
	return metricsCertData(s.Data, k.dnsNames, time.Now())
}

// serve makes the pair in data the metrics server's certificate, unless it is unreadable
// or expired at now.
func (k *certKeeper) serve(data map[string][]byte, now time.Time) error {
	pair, err := tls.X509KeyPair(data[tlsCertKey], data[tlsKeyKey])
	if err != nil {
		return err
	}
	if now.After(pair.Leaf.NotAfter) {
		return fmt.Errorf("the certificate in Secret %s expired at %v", k.name, pair.Leaf.NotAfter)
	}
	k.current.Store(&pair)
	return nil
}
