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
	"encoding/json"
	"net"
	"net/http"
	neturl "net/url"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	samplev1alpha1 "github.com/example/foo-operator/api/v1alpha1"
)

// A policy engine's mutating admission, as Kyverno's verifyImages does it: it pins every
// container image of a Deployment by digest and stamps the pod template as verified, in the
// namespaces labelled pinDigestsLabel. The API server calls it over loopback.
const (
	pinDigestsLabel    = "policy.example.com/pin-digests"
	pinnedDigest       = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	verifiedAnnotation = "policy.example.com/verified"
	pinDigestsPath     = "/pin-digests"
)

// Another policy, as GitOps and platform teams write them: it sets
// app.kubernetes.io/managed-by on every Deployment of the namespaces labelled relabelLabel.
const (
	relabelLabel = "policy.example.com/relabel"
	relabelValue = "platform-team"
	relabelPath  = "/relabel"
)

// policyWebhooks are the suite's mutating policies, served by this process.
func policyWebhooks() *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "policies"},
		Webhooks:   []admissionregistrationv1.MutatingWebhook{deploymentPolicy("pin-digests", pinDigestsPath, pinDigestsLabel), deploymentPolicy("relabel", relabelPath, relabelLabel)},
	}
}

// deploymentPolicy is a mutating webhook of Deployment writes in the namespaces labelled
// namespaceLabel=true, served at path.
func deploymentPolicy(name, path, namespaceLabel string) admissionregistrationv1.MutatingWebhook {
	return admissionregistrationv1.MutatingWebhook{
		Name: name + ".policy.example.com",
		// envtest points the service at this process's webhook server.
		ClientConfig: admissionregistrationv1.WebhookClientConfig{Service: &admissionregistrationv1.ServiceReference{
			Name: "policy", Namespace: "policy", Path: ptr.To(path),
		}},
		Rules: []admissionregistrationv1.RuleWithOperations{{
			Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
			Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
		}},
		NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{namespaceLabel: "true"}},
		FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
		SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
		AdmissionReviewVersions: []string{"v1"},
	}
}

// A validating admission that refuses every write it is sent: which ones, the
// ValidatingWebhookConfiguration of denyWebhook selects. A webhook rather than a
// ValidatingAdmissionPolicy, whose admissionregistration.k8s.io/v1 API the oldest Kubernetes
// the operator supports (1.29, make test-min-kube) does not serve.
const (
	denyPath    = "/deny"
	denyMessage = "denied by the test policy"
)

// denyWebhook is a configuration that sends this process's webhook server the Deployment
// writes in the namespaces and of the objects the selectors match.
func denyWebhook(namespaces, objects *metav1.LabelSelector) *admissionregistrationv1.ValidatingWebhookConfiguration {
	return &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "deny-foo-deployments-"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:         "deny.policy.example.com",
			ClientConfig: localWebhook(denyPath),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"apps"}, APIVersions: []string{"v1"}, Resources: []string{"deployments"}},
			}},
			NamespaceSelector:       namespaces,
			ObjectSelector:          objects,
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// A mutating admission that undoes every status write of a Foo, as a policy that guards a
// field can: the write then changes nothing, so no watch event follows it.
const undoStatusPath = "/undo-status"

// undoStatusWebhook is a configuration that sends this process's webhook server the writes
// of Foos' status in namespace ns.
func undoStatusWebhook(ns string) *admissionregistrationv1.MutatingWebhookConfiguration {
	return &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "undo-foo-status-"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name:         "undo-status.policy.example.com",
			ClientConfig: localWebhook(undoStatusPath),
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{samplev1alpha1.GroupVersion.Group}, APIVersions: []string{"*"}, Resources: []string{"foos/status"}},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"kubernetes.io/metadata.name": ns}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
}

// undoStatus is that policy: the written Foo gets the status it had.
func undoStatus(_ context.Context, req admission.Request) admission.Response {
	foo, old := &unstructured.Unstructured{}, &unstructured.Unstructured{}
	if err := foo.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if err := old.UnmarshalJSON(req.OldObject.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	foo.Object["status"] = old.Object["status"]
	mutated, err := json.Marshal(foo.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}

// localWebhook is the client configuration of this process's webhook server at path, for a
// configuration a spec creates (envtest installs only those of its WebhookInstallOptions).
func localWebhook(path string) admissionregistrationv1.WebhookClientConfig {
	opts := testEnv.WebhookInstallOptions
	url := (&neturl.URL{Scheme: "https", Host: net.JoinHostPort(opts.LocalServingHost, strconv.Itoa(opts.LocalServingPort)), Path: path}).String()
	return admissionregistrationv1.WebhookClientConfig{URL: &url, CABundle: opts.LocalServingCAData}
}

// serveWebhooks serves the suite's webhooks at the address envtest gave them, until the
// suite ends.
func serveWebhooks() {
	GinkgoHelper()
	opts := testEnv.WebhookInstallOptions
	server := webhook.NewServer(webhook.Options{Host: opts.LocalServingHost, Port: opts.LocalServingPort, CertDir: opts.LocalServingCertDir})
	server.Register(pinDigestsPath, &admission.Webhook{Handler: admission.HandlerFunc(pinDigests)})
	server.Register(relabelPath, &admission.Webhook{Handler: admission.HandlerFunc(relabel)})
	server.Register(undoStatusPath, &admission.Webhook{Handler: admission.HandlerFunc(undoStatus)})
	server.Register(denyPath, &admission.Webhook{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Denied(denyMessage)
	})})
	runUntilCleanup(server.Start)
	Eventually(func() error { return server.StartedChecker()(nil) }).Should(Succeed())
}

// pinDigests is the policy: images without a digest get pinnedDigest, the pod template the
// verified annotation.
func pinDigests(_ context.Context, req admission.Request) admission.Response {
	d := &unstructured.Unstructured{}
	if err := d.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	containers, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		c := c.(map[string]any)
		if image, _ := c["image"].(string); image != "" && !strings.Contains(image, "@") {
			c["image"] = image + "@" + pinnedDigest
		}
	}
	if err := unstructured.SetNestedSlice(d.Object, containers, "spec", "template", "spec", "containers"); err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	if err := unstructured.SetNestedField(d.Object, "true", "spec", "template", "metadata", "annotations", verifiedAnnotation); err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	mutated, err := json.Marshal(d.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}

// relabel is the relabelling policy: the Deployment's managed-by label becomes relabelValue.
func relabel(_ context.Context, req admission.Request) admission.Response {
	d := &unstructured.Unstructured{}
	if err := d.UnmarshalJSON(req.Object.Raw); err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	labels := d.GetLabels()
	if labels == nil {
		labels = map[string]string{}
	}
	labels["app.kubernetes.io/managed-by"] = relabelValue
	d.SetLabels(labels)
	mutated, err := json.Marshal(d.Object)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return admission.PatchResponseFromRaw(req.Object.Raw, mutated)
}
