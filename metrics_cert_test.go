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
	"os"
	"slices"
	"testing"
	"time"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
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

// TestCertKeeper runs two replicas' certKeepers against a real kube-apiserver (envtest,
// KUBEBUILDER_ASSETS as make test sets it), each as the operator's service account with
// exactly config/rbac/metrics_cert_role.yaml: one issues the certificate into the empty
// Secret, both serve it, and a client that trusts the Secret's CA verifies the metrics
// server under the ServiceMonitor's serverName. The Role lacks update when they start (as
// when the API server refuses a write for a while): their writes fail, and they try again
// once it has it, though the Secret did not change.
//
// Before: a write refused for another reason than a Conflict was tried again only at the
// Secret's next change or the informer's resync 12 hours later, and until then the metrics
// server refused every handshake.
func TestCertKeeper(t *testing.T) {
	g := NewWithT(t)
	env := &envtest.Environment{}
	cfg, err := env.Start()
	g.Expect(err).NotTo(HaveOccurred(), "start envtest: run the tests with `make test`, which builds kube-apiserver and etcd and sets KUBEBUILDER_ASSETS")
	t.Cleanup(func() { _ = env.Stop() })
	admin, err := kubernetes.NewForConfig(cfg)
	g.Expect(err).NotTo(HaveOccurred())
	ctx := t.Context()

	const ns, sa, secretName = "ops", "foo-operator-controller-manager", "foo-operator-metrics-cert"
	_, err = admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	raw, err := os.ReadFile("config/rbac/metrics_cert_role.yaml")
	g.Expect(err).NotTo(HaveOccurred())
	role := &rbacv1.Role{}
	g.Expect(yaml.Unmarshal(raw, role)).To(Succeed())
	g.Expect(role.Rules[0].ResourceNames).To(ConsistOf(secretName), "config/default prefixes the Secret's name, not the rule's")
	role.Namespace = ns
	shipped := role.Rules
	withoutUpdate := role.DeepCopy()
	withoutUpdate.Rules[0].Verbs = slices.DeleteFunc(withoutUpdate.Rules[0].Verbs, func(v string) bool { return v == "update" })
	g.Expect(withoutUpdate.Rules[0].Verbs).To(HaveLen(len(shipped[0].Verbs)-1), "the shipped Role has update")
	_, err = admin.RbacV1().Roles(ns).Create(ctx, withoutUpdate, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	_, err = admin.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "metrics-cert"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: role.Name},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}},
	}, metav1.CreateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	for _, name := range []string{secretName, "neighbour"} {
		_, err = admin.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		g.Expect(err).NotTo(HaveOccurred())
	}

	asOperator := rest.CopyConfig(cfg)
	asOperator.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":" + sa, Groups: []string{"system:serviceaccounts", "system:authenticated"}}
	operator, err := kubernetes.NewForConfig(asOperator)
	g.Expect(err).NotTo(HaveOccurred())
	_, err = operator.CoreV1().Secrets(ns).Get(ctx, "neighbour", metav1.GetOptions{})
	g.Expect(err).To(HaveOccurred(), "the role reaches no other Secret")

	var replicas []*certKeeper
	for range 2 {
		k := &certKeeper{secrets: operator.CoreV1().Secrets(ns), name: secretName, dnsNames: metricsDNSNames(ns)}
		runCtx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		go func() { _ = k.Start(runCtx) }()
		replicas = append(replicas, k)
	}
	g.Consistently(func(g Gomega) {
		s, err := admin.CoreV1().Secrets(ns).Get(ctx, secretName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(s.Data).To(BeEmpty())
		for _, k := range replicas {
			_, err := k.getCertificate(nil)
			g.Expect(err).To(HaveOccurred())
		}
	}).WithTimeout(2*time.Second).Should(Succeed(), "the Role does not let them write yet")
	live, err := admin.RbacV1().Roles(ns).Get(ctx, role.Name, metav1.GetOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	live.Rules = shipped
	_, err = admin.RbacV1().Roles(ns).Update(ctx, live, metav1.UpdateOptions{})
	g.Expect(err).NotTo(HaveOccurred())
	var stored *corev1.Secret
	g.Eventually(func(g Gomega) {
		stored, err = admin.CoreV1().Secrets(ns).Get(ctx, secretName, metav1.GetOptions{})
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(stored.Data).To(HaveKey(tlsCertKey))
		for _, k := range replicas {
			c, err := k.getCertificate(nil)
			g.Expect(err).NotTo(HaveOccurred())
			g.Expect(c.Certificate[0]).To(Equal(mustDER(g, stored.Data[tlsCertKey])), "every replica serves the stored certificate")
		}
	}).WithTimeout(20 * time.Second).Should(Succeed())

	addr := serveMetrics(t, fixedTLS(tlsSettings{minVersion: tls.VersionTLS12}), func(c *tls.Config) { c.GetCertificate = replicas[1].getCertificate })
	roots := x509.NewCertPool()
	g.Expect(roots.AppendCertsFromPEM(stored.Data[caCertKey])).To(BeTrue())
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: metricsServiceName, MinVersion: tls.VersionTLS12})
	g.Expect(err).NotTo(HaveOccurred(), "verified with the Secret's CA, as the ServiceMonitor's tlsConfig has Prometheus do")
	g.Expect(conn.Close()).To(Succeed())
	_, err = tls.Dial("tcp", addr, &tls.Config{RootCAs: roots, ServerName: "someone-else", MinVersion: tls.VersionTLS12})
	g.Expect(err).To(HaveOccurred(), "a name the certificate does not carry")
}

// mustDER is the DER of the first certificate of pemCerts.
func mustDER(g Gomega, pemCerts []byte) []byte {
	certs, err := cert.ParseCertsPEM(pemCerts)
	g.Expect(err).NotTo(HaveOccurred())
	return certs[0].Raw
}
