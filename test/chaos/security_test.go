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

package chaos

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
	"github.com/example/foo-operator/test/framework"
	"github.com/example/foo-operator/test/framework/suite"
)

// unrequestedPermissions are the permissions the operator holds without ever sending a
// request that uses them, and why it needs them.
var unrequestedPermissions = map[string]string{
	"update samplecontroller.example.com/foos/finalizers": "OwnerReferencesPermissionEnforcement (OpenShift) checks it when the operator sets blockOwnerDeletion on a Deployment",
	"list apps/deployments":                               "informers fall back to list where the API server has no streaming watch-lists (here they use watch)",
	"list samplecontroller.example.com/foos":              "informers fall back to list where the API server has no streaming watch-lists (here they use watch)",
	"list policy/poddisruptionbudgets":                    "informers fall back to list where the API server has no streaming watch-lists (here they use watch)",
	"list /secrets":                                       "the metrics certificate's informer (one Secret, by name) falls back to list where the API server has no streaming watch-lists (here it uses watch)",
	"get policy/poddisruptionbudgets":                     "read from the API server only when a create finds a budget under the Foo's name, most often the one the previous pass made before the cache saw it",
	"list config.openshift.io/apiservers":                 "read on OpenShift only, where the APIServer configuration holds the TLS profile the metrics server follows; this cluster has none",
	"watch config.openshift.io/apiservers":                "read on OpenShift only, where the APIServer configuration holds the TLS profile the metrics server follows; this cluster has none",
	"patch events.k8s.io/events":                          "the events library patches an Event when the same event repeats (a series)",
	"patch /events":                                       "the leader election's event recorder patches a repeated event's count",
}

// securitySpecs are scenario 6 of the suite. They run after the faults, so that the audit
// log holds every kind of request the operator makes.
func securitySpecs() {
	It("serves metrics to clients allowed to read them only", func() {
		const scenario = "6. Security: metrics endpoint"
		port := suite.FreePort()
		// With the certificate config/default's Deployment serves: kept in the Secret it ships.
		startReplica("manager-metrics", fmt.Sprintf("--metrics-bind-address=127.0.0.1:%d", port), "--metrics-cert-secret="+metricsCertSecret)
		url := fmt.Sprintf("https://127.0.0.1:%d/metrics", port)
		var secret corev1.Secret
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: metricsCertSecret}, &secret)).To(Succeed())
			g.Expect(secret.Data).To(HaveKey("ca.crt"))
		}).WithTimeout(time.Minute).Should(Succeed())
		roots := x509.NewCertPool()
		Expect(roots.AppendCertsFromPEM(secret.Data["ca.crt"])).To(BeTrue())
		// As the ServiceMonitor has Prometheus verify it: the Secret's CA, the Service's name.
		verifying := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: "foo-operator-controller-manager-metrics-service", MinVersion: tls.VersionTLS12},
		}}

		Expect(k8s.Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "stranger", Namespace: "default"}})).To(Succeed())
		Expect(k8s.Create(context.Background(), &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "prometheus", Namespace: "default"}})).To(Succeed())
		Expect(k8s.Create(context.Background(), &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "prometheus-reads-foo-operator-metrics"},
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "foo-operator-metrics-reader"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "prometheus", Namespace: "default"}},
		})).To(Succeed())

		for _, caller := range []struct {
			name, token string
			want        int
		}{
			{"anonymous", "", http.StatusUnauthorized},
			{"authenticated, without foo-operator-metrics-reader", tokenOf("default", "stranger"), http.StatusForbidden},
			{"bound to foo-operator-metrics-reader", tokenOf("default", "prometheus"), http.StatusOK},
		} {
			// Polled: the endpoint starts serving, and the binding just created reaches the
			// API server's authorizer, a moment after.
			var status int
			Eventually(func() (int, error) {
				var err error
				status, err = metricsStatus(verifying, url, caller.token)
				return status, err
			}).WithTimeout(time.Minute).Should(Equal(caller.want), caller.name)
			figures.add(scenario, caller.name, status)
		}
	})

	It("runs its own pods and its operands' pods under Pod Security restricted", func() {
		const scenario = "6. Security: Pod Security restricted enforced"
		By("the operator's Deployment from config/default, in " + operatorNamespace)
		managerPods := podsIn(operatorNamespace, operatorLabels)
		Eventually(managerPods).WithTimeout(2 * time.Minute).ShouldNot(BeEmpty())
		admitted, err := managerPods()
		Expect(err).NotTo(HaveOccurred())
		figures.add(scenario, "operator pods admitted in "+operatorNamespace, len(admitted))

		By("a Foo's pods in another restricted namespace")
		env.CreateNamespace("restricted-tenant", true)
		// An environment check, not of the operator: kube-apiserver enforces Pod Security
		// there, so the operand pods below passed it rather than a lax namespace.
		By("environment check: the namespace refuses a root pod")
		rootPod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "root", Namespace: "restricted-tenant"},
			Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.com/c:1"}}},
		}
		err = k8s.Create(context.Background(), rootPod, client.DryRunAll)
		Expect(apierrors.IsForbidden(err)).To(BeTrue(), "%v", err)
		Expect(err.Error()).To(ContainSubstring("violates PodSecurity"))
		startReplica("manager-psa")
		Expect(k8s.Create(context.Background(), &samplev1alpha1.Foo{
			ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "restricted-tenant"},
			Spec:       samplev1alpha1.FooSpec{DeploymentName: "web", Replicas: ptr.To[int32](2)},
		})).To(Succeed())
		expectConverged("restricted-tenant", 1)
		operandPods := podsIn("restricted-tenant", client.MatchingLabels{"controller": "web"})
		Eventually(operandPods).Should(HaveLen(2))
		admitted, err = operandPods()
		Expect(err).NotTo(HaveOccurred())
		figures.add(scenario, "operand pods admitted in a restricted namespace (the Foo asks for 2)", len(admitted))

		By("renaming its Deployment: the operator deletes the old one once the new one is available")
		foo := &samplev1alpha1.Foo{}
		Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: "restricted-tenant", Name: "web"}, foo)).To(Succeed())
		foo.Spec.DeploymentName = "web-2"
		Expect(k8s.Update(context.Background(), foo)).To(Succeed())
		Eventually(func() error {
			return k8s.Get(context.Background(), client.ObjectKey{Namespace: "restricted-tenant", Name: "web"}, &appsv1.Deployment{})
		}).Should(Satisfy(apierrors.IsNotFound))

		By("its PodDisruptionBudget: kept at 2 replicas, taken back when changed, deleted at 1")
		budget := &policyv1.PodDisruptionBudget{}
		Eventually(func() error {
			return k8s.Get(context.Background(), client.ObjectKey{Namespace: "restricted-tenant", Name: "web"}, budget)
		}).Should(Succeed())
		changed := budget.DeepCopy()
		changed.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(0))
		Expect(k8s.Patch(context.Background(), changed, client.MergeFrom(budget))).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(k8s.Get(context.Background(), client.ObjectKeyFromObject(budget), changed)).To(Succeed())
			g.Expect(changed.Spec.MaxUnavailable).To(Equal(ptr.To(intstr.FromInt32(1))))
		}).Should(Succeed())
		Expect(k8s.Patch(context.Background(), foo, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"replicas":1}}`)))).To(Succeed())
		Eventually(func() error { return k8s.Get(context.Background(), client.ObjectKeyFromObject(budget), changed) }).
			Should(Satisfy(apierrors.IsNotFound))

	})

	It("uses every permission it holds, holds none it does not use, and no access to Secrets", func() {
		const scenario = "6. Security: least privilege"
		granted := grantedPermissions()
		used := map[string]bool{}
		// refused and authorized are keyed by verb, resource and namespace: the roles do not
		// change during the suite, so a request refused where the same request was authorized
		// at another time was refused by the authorizer's state, not for a permission
		// missing: kube-apiserver answers before its RBAC informers have synced after a
		// restart (kubernetes/kubernetes#121635), which the outage scenarios do.
		refused := map[string]string{}
		authorized := map[string]bool{}
		for _, e := range readAudit() {
			if e.User.Username != operatorUser || e.ObjectRef.Resource == "" {
				continue
			}
			request := fmt.Sprintf("%s %s in %q", e.Verb, e.Resource(), e.ObjectRef.Namespace)
			// The authorizer's decision, not the response code: a request authorized and
			// then refused by admission (an Event in a namespace being deleted answers 403)
			// used its permission.
			if e.Unauthorized() {
				refused[request] = e.Received.Format(time.RFC3339Nano) + " " + e.Annotations["authorization.k8s.io/reason"]
			} else {
				authorized[request] = true
				used[e.Verb+" "+e.Resource()] = true
			}
		}
		var forbidden []string
		transient := 0
		for request, when := range refused {
			if authorized[request] {
				transient++
			} else {
				forbidden = append(forbidden, request+" at "+when)
			}
		}
		Expect(forbidden).To(BeEmpty(), "requests the operator made that its RBAC refused")
		figures.add(scenario, "requests of the operator that its RBAC refused", len(forbidden))
		figures.add(scenario, "requests (verb, resource, namespace) refused at one time and authorized at another (API server restarts)", transient)
		var unused, unexplained, denied, stale []string
		for p := range granted {
			switch {
			case used[p]:
			case unrequestedPermissions[p] == "":
				unexplained = append(unexplained, p)
			default:
				unused = append(unused, p)
			}
		}
		for p := range used {
			if !granted[p] {
				denied = append(denied, p)
			}
		}
		// A reason for a permission not granted is out of date. (One used in this run is not:
		// whether an event repeats, or an informer lists, varies from run to run.)
		for p := range unrequestedPermissions {
			if !granted[p] {
				stale = append(stale, p)
			}
		}
		slices.Sort(unexplained)
		slices.Sort(unused)
		Expect(unexplained).To(BeEmpty(), "permissions no scenario used: remove them, or say in unrequestedPermissions why the operator needs them")
		Expect(denied).To(BeEmpty(), "requests the granted roles do not cover")
		Expect(stale).To(BeEmpty(), "unrequestedPermissions entries for permissions not granted")
		figures.add(scenario, "permissions held", len(granted))
		figures.add(scenario, "of which used by a request in this run", len(granted)-len(unused))
		figures.add(scenario, "held without a request (each with its reason in security_test.go)", fmt.Sprintf("%d: %s", len(unused), strings.Join(unused, ", ")))

		var secrets []string
		for _, verb := range []string{"get", "list", "watch"} {
			answer := canI(verb, "secrets")
			Expect(answer).To(Equal("no"), "%s secrets", verb)
			secrets = append(secrets, verb+": "+answer)
		}
		figures.add(scenario, "access to Secrets in all namespaces (kubectl auth can-i)", strings.Join(secrets, ", "))
	})
}

// metricsCertSecret is the Secret config/default ships for the metrics certificate.
const metricsCertSecret = "foo-operator-metrics-cert"

// operatorLabels select the pods of the operator's Deployment (config/manager).
var operatorLabels = client.MatchingLabels{"control-plane": "controller-manager"}

// podsIn returns a function listing the pods of ns that match labels.
func podsIn(ns string, labels client.MatchingLabels) func() ([]corev1.Pod, error) {
	return func() ([]corev1.Pod, error) {
		pods := &corev1.PodList{}
		err := k8s.List(context.Background(), pods, client.InNamespace(ns), labels)
		return pods.Items, err
	}
}

// grantedPermissions are the "verb group/resource" the roles config/default binds to the
// operator's service account grant, read from the cluster.
func grantedPermissions() map[string]bool {
	GinkgoHelper()
	var rules []rbacv1.PolicyRule
	crbs := &rbacv1.ClusterRoleBindingList{}
	Expect(k8s.List(context.Background(), crbs)).To(Succeed())
	for _, b := range crbs.Items {
		if boundToOperator(b.Subjects) {
			role := &rbacv1.ClusterRole{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Name: b.RoleRef.Name}, role)).To(Succeed())
			rules = append(rules, role.Rules...)
		}
	}
	rbs := &rbacv1.RoleBindingList{}
	Expect(k8s.List(context.Background(), rbs, client.InNamespace(operatorNamespace))).To(Succeed())
	for _, b := range rbs.Items {
		if boundToOperator(b.Subjects) {
			role := &rbacv1.Role{}
			Expect(k8s.Get(context.Background(), client.ObjectKey{Namespace: operatorNamespace, Name: b.RoleRef.Name}, role)).To(Succeed())
			rules = append(rules, role.Rules...)
		}
	}
	granted := map[string]bool{}
	for _, r := range rules {
		for _, group := range r.APIGroups {
			for _, resource := range r.Resources {
				for _, verb := range r.Verbs {
					granted[verb+" "+group+"/"+resource] = true
				}
			}
		}
	}
	return granted
}

func boundToOperator(subjects []rbacv1.Subject) bool {
	return slices.ContainsFunc(subjects, func(s rbacv1.Subject) bool {
		return s.Kind == rbacv1.ServiceAccountKind && s.Name == serviceAccount && s.Namespace == operatorNamespace
	})
}

// canI is what `kubectl auth can-i verb resource --all-namespaces` answers for the operator.
func canI(verb, resource string) string {
	GinkgoHelper()
	out, _ := framework.Run(root, nil, nil, "bin/kubectl", "--kubeconfig", kubeconfig, "auth", "can-i", verb, resource, "--all-namespaces")
	return strings.TrimSpace(out) // "no" exits with 1
}

// metricsStatus is the HTTP status of a GET of the metrics endpoint with a bearer token
// (none when empty). The endpoint's certificate is self-signed.
func metricsStatus(c *http.Client, url, token string) (int, error) {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	return resp.StatusCode, nil
}
