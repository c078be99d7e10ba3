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
	"net/http"
	"net/http/httptest"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/go-logr/logr"
	. "github.com/onsi/gomega"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
)

// The metrics endpoint answers as controller-runtime's filter did: 401 without a token the
// API server knows, 403 to a user not allowed to get /metrics, and the metrics to one who
// is, checking each token and decision once while cached.
func TestMetricsAuth(t *testing.T) {
	g := NewWithT(t)
	kube := fake.NewClientset()
	tokenReviews, accessReviews, failures := 0, 0, 1
	kube.PrependReactor("create", "tokenreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		tokenReviews++
		review := action.(clienttesting.CreateAction).GetObject().(*authenticationv1.TokenReview).DeepCopy()
		switch review.Spec.Token {
		case "prometheus-token":
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "system:serviceaccount:monitoring:prometheus", Groups: []string{"system:serviceaccounts"}}}
		case "stranger-token":
			review.Status = authenticationv1.TokenReviewStatus{Authenticated: true, User: authenticationv1.UserInfo{Username: "stranger"}}
		}
		return true, review, nil
	})
	kube.PrependReactor("create", "subjectaccessreviews", func(action clienttesting.Action) (bool, runtime.Object, error) {
		accessReviews++
		if failures > 0 { // a transient failure is retried
			failures--
			return true, nil, apierrors.NewInternalError(http.ErrAbortHandler)
		}
		review := action.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview).DeepCopy()
		g.Expect(review.Spec.Groups).To(ContainElement("system:authenticated"))
		g.Expect(review.Spec.NonResourceAttributes).To(Equal(&authorizationv1.NonResourceAttributes{Path: "/metrics", Verb: "get"}))
		review.Status.Allowed = review.Spec.User == "system:serviceaccount:monitoring:prometheus"
		return true, review, nil
	})
	a := newMetricsAuth(kube.AuthenticationV1().TokenReviews(), kube.AuthorizationV1().SubjectAccessReviews())
	var sawAuthorization []string
	h, err := a.filter(logr.Discard(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawAuthorization = append(sawAuthorization, r.Header.Get("Authorization"))
		_, _ = w.Write([]byte("metrics"))
	}))
	g.Expect(err).NotTo(HaveOccurred())
	get := func(authorization string) int {
		req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code
	}

	g.Expect(get("")).To(Equal(http.StatusUnauthorized))
	g.Expect(get("Basic dXNlcjpwYXNz")).To(Equal(http.StatusUnauthorized))
	g.Expect(get("Bearer unknown-token")).To(Equal(http.StatusUnauthorized))
	g.Expect(get("Bearer stranger-token")).To(Equal(http.StatusForbidden))
	g.Expect(get("Bearer prometheus-token")).To(Equal(http.StatusOK))
	g.Expect(get("bearer prometheus-token")).To(Equal(http.StatusOK))
	g.Expect(sawAuthorization).To(Equal([]string{"", ""}), "the token does not reach the handler")
	g.Expect(tokenReviews).To(Equal(3), "one TokenReview per token while cached")
	g.Expect(accessReviews).To(Equal(3), "one SubjectAccessReview per user while cached, one more for the retried failure")
}

// The manager does not link k8s.io/apiserver: controller-runtime's metrics filter would bring
// it back, with CEL, OpenTelemetry and gRPC (see metricsAuthFilter). One package of it
// comes with library-go's crypto (the OpenShift TLS profile's cipher names): the user.Info
// interface, which imports nothing.
func TestManagerLinksNoAPIServer(t *testing.T) {
	g := NewWithT(t)
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	g.Expect(err).NotTo(HaveOccurred())
	apiserver := slices.DeleteFunc(strings.Fields(string(out)), func(p string) bool { return !strings.HasPrefix(p, "k8s.io/apiserver/") })
	g.Expect(apiserver).To(ConsistOf("k8s.io/apiserver/pkg/authentication/user"))
}
