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
	"crypto/x509"
	"maps"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	"github.com/openshift/library-go/pkg/crypto"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/kubernetes"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"
)

// TestMetricsCertData checks when the metrics certificate Secret gets a new serving
// certificate, and a new CA.
func TestMetricsCertData(t *testing.T) {
	g := NewWithT(t)
	monitor, readErr := os.ReadFile("config/prometheus/monitor.yaml")
	g.Expect(readErr).NotTo(HaveOccurred())
	g.Expect(string(monitor)).To(ContainSubstring("serverName: "+metricsServiceName+"\n"), "the name the ServiceMonitor verifies")
	names := metricsDNSNames("ops")
	now := time.Now()
	leaf := func(data map[string][]byte) *x509.Certificate {
		certs, err := cert.ParseCertsPEM(data[tlsCertKey])
		g.Expect(err).NotTo(HaveOccurred())
		return certs[0]
	}

	issued, changed, err := metricsCertData(map[string][]byte{"other": []byte("kept")}, names, now)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "an empty Secret gets a CA and a certificate")
	g.Expect(issued).To(HaveKeyWithValue("other", []byte("kept")))
	g.Expect(leaf(issued).DNSNames).To(ConsistOf(names))
	g.Expect(leaf(issued).NotAfter).To(BeTemporally("~", now.Add(metricsCertLifetime), time.Hour))
	roots := x509.NewCertPool()
	g.Expect(roots.AppendCertsFromPEM(issued[caCertKey])).To(BeTrue())
	_, err = leaf(issued).Verify(x509.VerifyOptions{Roots: roots, DNSName: metricsServiceName})
	g.Expect(err).NotTo(HaveOccurred(), "the CA verifies the certificate for the ServiceMonitor's serverName")

	same, changed, err := metricsCertData(issued, names, now.Add(metricsCertLifetime-metricsCertRenewBefore-time.Hour))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeFalse(), "kept until %v before it expires", metricsCertRenewBefore)
	g.Expect(same).To(Equal(issued))

	renewed, changed, err := metricsCertData(issued, names, now.Add(metricsCertLifetime-metricsCertRenewBefore+time.Hour))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "renewed %v before it expires", metricsCertRenewBefore)
	g.Expect(renewed[caCertKey]).To(Equal(issued[caCertKey]), "by the same CA, which Prometheus already trusts")
	g.Expect(renewed[tlsCertKey]).NotTo(Equal(issued[tlsCertKey]))

	moved, changed, err := metricsCertData(issued, metricsDNSNames("elsewhere"), now)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "other names: a new certificate")
	g.Expect(moved[caCertKey]).To(Equal(issued[caCertKey]))
	g.Expect(leaf(moved).DNSNames).To(ConsistOf(metricsDNSNames("elsewhere")))

	foreign, _, err := metricsCertData(nil, names, now)
	g.Expect(err).NotTo(HaveOccurred())
	mixed := map[string][]byte{caCertKey: issued[caCertKey], caKeyKey: issued[caKeyKey], tlsCertKey: foreign[tlsCertKey], tlsKeyKey: foreign[tlsKeyKey]}
	resigned, changed, err := metricsCertData(mixed, names, now)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "a certificate another CA signed is replaced")
	g.Expect(resigned[caCertKey]).To(Equal(issued[caCertKey]))

	late := now.Add(metricsCALifetime - metricsCertLifetime + time.Hour)
	newCA, changed, err := metricsCertData(issued, names, late)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue())
	g.Expect(newCA[caCertKey]).NotTo(Equal(issued[caCertKey]), "a CA that would expire before a new certificate is replaced")

	broken := map[string][]byte{caCertKey: []byte("garbage"), caKeyKey: []byte("garbage"), tlsCertKey: []byte("garbage")}
	_, changed, err = metricsCertData(broken, names, now)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "unreadable content is replaced")
}

// certKeeperCluster is a real kube-apiserver (envtest, KUBEBUILDER_ASSETS as make test sets
// it) with the namespace of the metrics certificate Secret, that Secret empty, a neighbour
// Secret, and the operator's service account bound to config/rbac/metrics_cert_role.yaml
// without update, as when the API server refuses its writes for a while (allowUpdate
// grants the shipped Role).
type certKeeperCluster struct {
	admin, operator kubernetes.Interface
	role            *rbacv1.Role
}

const certKeeperNamespace, certKeeperSecret = "ops", "foo-operator-metrics-cert"

func startCertKeeperCluster(t *testing.T) *certKeeperCluster {
	g := NewWithT(t)
	env := &envtest.Environment{}
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred(), "start envtest: run the tests with `make test`, which builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS")
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	ctx := t.Context()

	const ns, sa = certKeeperNamespace, "foo-operator-controller-manager"
	_, err = admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	raw, err := os.ReadFile("config/rbac/metrics_cert_role.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.Role{}
	g.Expect(yaml.Unmarshal(raw, role)).To(Succeed())
	g.Expect(role.Rules[0].ResourceNames).To(ConsistOf(certKeeperSecret), "config/default prefixes the Secret's name, not the rule's")
	role.Namespace = ns
	withoutUpdate := role.DeepCopy()
	withoutUpdate.Rules[0].Verbs = slices.DeleteFunc(withoutUpdate.Rules[0].Verbs, func(v string) bool { return v == "update" })
	g.Expect(withoutUpdate.Rules[0].Verbs).To(HaveLen(len(role.Rules[0].Verbs)-1), "the shipped Role has update")
	_, err = admin.RbacV1().Roles(ns).Create(ctx, withoutUpdate, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-cert"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{certKeeperSecret, "neighbour"} {
		_, err = admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}

	asOperator := rest.CopyConfig(cfg)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + sa, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	operator, err := kubernetes.NewForConfig(asOperator)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = operator.CoreV1().Secrets(ns).Get(ctx, "neighbour", metav1.GetOptions{})
	g.Expect(err).To(HaveOccurred(), "the role reaches no other Secret")
	return &certKeeperCluster{admin: admin, operator: operator, role: role}
}

// startReplica starts a replica's certKeeper, as the operator's service account, until the
// test ends; its client notes what it writes (sentUpdates).
func (c *certKeeperCluster) startReplica(t *testing.T) *certKeeper {
	secrets := &notingSecrets{SecretInterface: c.operator.CoreV1().Secrets(certKeeperNamespace)}
	k := &certKeeper{secrets: secrets, name: certKeeperSecret, dnsNames: metricsDNSNames(certKeeperNamespace)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = k.Start(ctx) }()
	return k
}

// notingSecrets is a client of the API server that notes the data of every update it
// sends, whatever the API server answers.
type notingSecrets struct {
	corev1client.SecretInterface
	mu   sync.Mutex
	sent []map[string][]byte
}

func (n *notingSecrets) Update(ctx context.Context, s *corev1.Secret, o metav1.UpdateOptions) (*corev1.Secret, error) {
	n.mu.Lock()
	n.sent = append(n.sent, maps.Clone(s.Data))
	n.mu.Unlock()
	return n.SecretInterface.Update(ctx, s, o)
}

// sentUpdates is the data of every update k sent, the first first.
func sentUpdates(k *certKeeper) []map[string][]byte {
	n := k.secrets.(*notingSecrets)
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.sent)
}

// allowUpdate gives the operator's service account the shipped Role, update included.
func (c *certKeeperCluster) allowUpdate(ctx context.Context, g Gomega) {
	live, err := c.admin.RbacV1().Roles(certKeeperNamespace).Get(ctx, c.role.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	live.Rules = c.role.Rules
	_, err = c.admin.RbacV1().Roles(certKeeperNamespace).Update(ctx, live, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
}

// stored is the metrics certificate Secret's data.
func (c *certKeeperCluster) stored(ctx context.Context, g Gomega) map[string][]byte {
	s, err := c.admin.CoreV1().Secrets(certKeeperNamespace).Get(ctx, certKeeperSecret, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	return s.Data
}

// TestCertKeeper runs two replicas' certKeepers, each as the operator's service account with
// exactly the Role it ships: one issues the certificate into the empty Secret, both serve
// it, and a client that trusts the Secret's CA verifies the metrics server under the
// ServiceMonitor's serverName. The Role lacks update when they start: their writes fail,
// and they try again once it has it, though the Secret did not change.
//
// Before: a write refused for another reason than a Conflict was tried again only at the
// Secret's next change or the informer's resync 12 hours later, and until then the metrics
// server refused every handshake. And each retry made a new CA and key pair, two RSA key
// generations, though the Secret it wrote over had not changed.
func TestCertKeeper(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	cluster := startCertKeeperCluster(t)
	replicas := []*certKeeper{cluster.startReplica(t), cluster.startReplica(t)}
	// How soon a replica's first write goes out depends on the machine (it makes a CA and a
	// key pair first), so the test waits for the retries rather than for a fixed time.
	g.Eventually(func(g Gomega) {
		for _, k := range replicas {
			g.Expect(len(sentUpdates(k))).To(BeNumerically(">=", 3), "a refused write is tried again")
		}
	}).WithTimeout(30 * time.Second).Should(Succeed())
	g.Consistently(func(g Gomega) {
		g.Expect(cluster.stored(ctx, g)).To(BeEmpty())
		for _, k := range replicas {
			_, err := k.getCertificate(nil)
			g.Expect(err).To(HaveOccurred())
		}
	}).WithTimeout(2*time.Second).Should(Succeed(), "the Role does not let them write yet")
	var firstTries []map[string][]byte
	for _, k := range replicas {
		sent := sentUpdates(k)
		for _, data := range sent[1:] {
			g.Expect(data).To(Equal(sent[0]), "a retry sends the first try's certificate, no new keys")
		}
		firstTries = append(firstTries, sent[0])
	}
	cluster.allowUpdate(ctx, g)
	var stored map[string][]byte
	g.Eventually(func(g Gomega) {
		stored = cluster.stored(ctx, g)
		g.Expect(stored).To(Or(Equal(firstTries[0]), Equal(firstTries[1])), "one replica's first try")
		for _, k := range replicas {
			c, err := k.getCertificate(nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(c.Certificate[0]).To(Equal(mustDER(g, stored[tlsCertKey])), "every replica serves the stored certificate")
		}
	}).WithTimeout(20 * time.Second).Should(Succeed())

	addr := serveMetrics(t, fixedTLS(tlsSettings{minVersion: tls.VersionTLS12}), func(c *tls.Config) { c.GetCertificate = replicas[1].getCertificate })
	roots := x509.NewCertPool()
	g.Expect(roots.AppendCertsFromPEM(stored[caCertKey])).To(BeTrue())
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: metricsServiceName, MinVersion: tls.VersionTLS12})
	g.Expect(err).NotTo(HaveOccurred(), "verified with the Secret's CA, as the ServiceMonitor's tlsConfig has Prometheus do")
	g.Expect(conn.Close()).To(Succeed())
	_, err = tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "someone-else", MinVersion: tls.VersionTLS12})
	g.Expect(err).To(HaveOccurred(), "a name the certificate does not carry")
}

// TestCertKeeperServesTheStoredCertificateUntilItRenewsIt starts a replica while the
// Secret's certificate, valid for 30 more days, is due for renewal and the API server
// refuses the replica's write: it serves the stored certificate, then the renewed one once
// its write is allowed. An expired one it does not serve.
//
// Before: a replica that had served nothing yet refused every handshake until its write
// succeeded, though the Secret held a valid certificate.
func TestCertKeeperServesTheStoredCertificateUntilItRenewsIt(t *testing.T) {
	g := NewWithT(t)
	ctx := t.Context()
	cluster := startCertKeeperCluster(t)
	names := metricsDNSNames(certKeeperNamespace)
	due, _, err := metricsCertData(nil, names, time.Now())
	g.Expect(err).NotTo(HaveOccurred())
	ca, err := crypto.GetCAFromBytes(due[caCertKey], due[caKeyKey])
	g.Expect(err).NotTo(HaveOccurred())
	serving, err := ca.MakeServerCertForDuration(sets.New(names...), 30*24*time.Hour)
	g.Expect(err).NotTo(HaveOccurred())
	due[tlsCertKey], due[tlsKeyKey], err = serving.GetPEMBytes()
	g.Expect(err).NotTo(HaveOccurred())
	_, changed, err := metricsCertData(due, names, time.Now())
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(changed).To(BeTrue(), "30 days left: due for renewal")
	s, err := cluster.admin.CoreV1().Secrets(certKeeperNamespace).Get(ctx, certKeeperSecret, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	s.Data = due
	_, err = cluster.admin.CoreV1().Secrets(certKeeperNamespace).Update(ctx, s, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())

	k := cluster.startReplica(t)
	g.Eventually(func(g Gomega) {
		c, err := k.getCertificate(nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.Certificate[0]).To(Equal(mustDER(g, due[tlsCertKey])))
	}).WithTimeout(10*time.Second).Should(Succeed(), "the stored certificate while the renewal is refused")
	g.Expect(cluster.stored(ctx, g)).To(Equal(due))
	g.Expect(k.serve(due, time.Now().Add(31*24*time.Hour))).NotTo(Succeed(), "expired")

	cluster.allowUpdate(ctx, g)
	g.Eventually(func(g Gomega) {
		stored := cluster.stored(ctx, g)
		g.Expect(stored[tlsCertKey]).NotTo(Equal(due[tlsCertKey]))
		g.Expect(stored[caCertKey]).To(Equal(due[caCertKey]), "renewed by the same CA")
		c, err := k.getCertificate(nil)
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(c.Certificate[0]).To(Equal(mustDER(g, stored[tlsCertKey])))
	}).WithTimeout(20*time.Second).Should(Succeed(), "the renewed certificate once the write is allowed")
}

// mustDER is the DER of the first certificate of pemCerts.
func mustDER(g Gomega, pemCerts []byte) []byte {
	certs, err := cert.ParseCertsPEM(pemCerts)
	g.Expect(err).NotTo(HaveOccurred())
	return certs[0].Raw
}
