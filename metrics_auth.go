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
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/wait"
	authenticationv1client "k8s.io/client-go/kubernetes/typed/authentication/v1"
	authorizationv1client "k8s.io/client-go/kubernetes/typed/authorization/v1"
	"k8s.io/client-go/rest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The metrics endpoint's authentication and authorisation, as controller-runtime's
// filters.WithAuthenticationAndAuthorization does them, with client-go's typed clients
// instead of k8s.io/apiserver's delegating authenticator and authorizer: the bearer token
// is checked with a TokenReview (its result cached for a minute), then the user's get on
// the request's path with a SubjectAccessReview (allowed cached for 5 minutes, denied for
// 30 s), each retried on transient errors with the same backoff. It is written here rather
// than taken from controller-runtime for memory: k8s.io/apiserver (and the CEL,
// OpenTelemetry and gRPC packages it brings) made up over a third of the executable, whose
// mapped pages are most of the operator's resident memory; the benchmark's RSS target (at
// most sample-controller's, docs/benchmarks.md) cannot be met with it linked.
const (
	tokenCacheTTL    = time.Minute
	allowedCacheTTL  = 5 * time.Minute
	deniedCacheTTL   = 30 * time.Second
	reviewTimeout    = 10 * time.Second
	maxCachedReviews = 256 // per cache, least recently used dropped first
)

// reviewBackoff is k8s.io/apiserver's DefaultAuthWebhookRetryBackoff, as controller-runtime
// copies it.
var reviewBackoff = wait.Backoff{Duration: 500 * time.Millisecond, Factor: 1.5, Jitter: 0.2, Steps: 5}

// metricsAuthFilter is the metrics server's FilterProvider.
func metricsAuthFilter(config *rest.Config, httpClient *http.Client) (metricsserver.Filter, error) {
	authn, err := authenticationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	authz, err := authorizationv1client.NewForConfigAndClient(config, httpClient)
	if err != nil {
		return nil, err
	}
	return newMetricsAuth(authn.TokenReviews(), authz.SubjectAccessReviews()).filter, nil
}

// filter serves handler to the requests authenticated and authorised, with
// controller-runtime's filter's answers otherwise: 401 without a valid token, 403 when not
// allowed, 500 when the API server could not tell.
func (a *metricsAuth) filter(log logr.Logger, handler http.Handler) (http.Handler, error) {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		u, err := a.authenticate(req)
		switch {
		case err != nil:
			log.Error(err, "Authentication failed")
			http.Error(w, "Authentication failed", http.StatusInternalServerError)
			return
		case u == nil:
			log.V(4).Info("Authentication failed")
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		allowed, reason, err := a.authorize(req.Context(), u, strings.ToLower(req.Method), req.URL.Path)
		switch {
		case err != nil:
			msg := fmt.Sprintf("Authorization for user %s failed", u.Username)
			log.Error(err, msg)
			http.Error(w, msg, http.StatusInternalServerError)
			return
		case !allowed:
			msg := fmt.Sprintf("Authorization denied for user %s", u.Username)
			log.V(4).Info(fmt.Sprintf("%s: %s", msg, reason))
			http.Error(w, msg, http.StatusForbidden)
			return
		}
		handler.ServeHTTP(w, req)
	}), nil
}

// metricsAuth checks scrapes with the API server and caches its answers.
type metricsAuth struct {
	tokens  authenticationv1client.TokenReviewInterface
	reviews authorizationv1client.SubjectAccessReviewInterface
	// users by the token's SHA-256 (a *UserInfo, nil when not authenticated); decisions
	// (a SubjectAccessReviewStatus) by the SubjectAccessReview's spec, as JSON.
	users, decisions *cache.LRUExpireCache
}

func newMetricsAuth(tokens authenticationv1client.TokenReviewInterface, reviews authorizationv1client.SubjectAccessReviewInterface) *metricsAuth {
	return &metricsAuth{tokens: tokens, reviews: reviews,
		users: cache.NewLRUExpireCache(maxCachedReviews), decisions: cache.NewLRUExpireCache(maxCachedReviews)}
}

// authenticate returns the user of the request's bearer token; nil when there is no token
// or the API server does not know it. A request it authenticates loses its Authorization
// header, as k8s.io/apiserver's bearer token authenticator does.
func (a *metricsAuth) authenticate(req *http.Request) (*authenticationv1.UserInfo, error) {
	scheme, token, _ := strings.Cut(strings.TrimSpace(req.Header.Get("Authorization")), " ")
	token, _, _ = strings.Cut(token, " ")
	if !strings.EqualFold(scheme, "bearer") || token == "" {
		return nil, nil
	}
	key := sha256.Sum256([]byte(token))
	v, ok := a.users.Get(key)
	u, _ := v.(*authenticationv1.UserInfo)
	if !ok {
		var review *authenticationv1.TokenReview
		err := withRetries(req.Context(), func(ctx context.Context) (err error) {
			review, err = a.tokens.Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: token}}, metav1.CreateOptions{})
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("TokenReview: %w", err)
		}
		if review.Status.Authenticated {
			u = &review.Status.User
			if !slices.Contains(u.Groups, "system:authenticated") {
				u.Groups = append(u.Groups, "system:authenticated")
			}
		} else if review.Status.Error != "" {
			// Not cached, as k8s.io/apiserver's token cache does not cache errors.
			return nil, errors.New(review.Status.Error)
		}
		a.users.Add(key, u, tokenCacheTTL)
	}
	if u != nil {
		req.Header.Del("Authorization")
	}
	return u, nil
}

// authorize asks whether u may verb the non-resource URL path.
func (a *metricsAuth) authorize(ctx context.Context, u *authenticationv1.UserInfo, verb, path string) (bool, string, error) {
	spec := authorizationv1.SubjectAccessReviewSpec{
		User: u.Username, UID: u.UID, Groups: u.Groups,
		NonResourceAttributes: &authorizationv1.NonResourceAttributes{Path: path, Verb: verb},
	}
	if len(u.Extra) > 0 {
		spec.Extra = make(map[string]authorizationv1.ExtraValue, len(u.Extra))
		for k, v := range u.Extra {
			spec.Extra[k] = authorizationv1.ExtraValue(v)
		}
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return false, "", err
	}
	key := string(raw)
	v, ok := a.decisions.Get(key)
	status, _ := v.(authorizationv1.SubjectAccessReviewStatus)
	if !ok {
		var review *authorizationv1.SubjectAccessReview
		err := withRetries(ctx, func(ctx context.Context) (err error) {
			review, err = a.reviews.Create(ctx, &authorizationv1.SubjectAccessReview{Spec: spec}, metav1.CreateOptions{})
			return err
		})
		if err != nil {
			return false, "", fmt.Errorf("SubjectAccessReview: %w", err)
		}
		status = review.Status
		ttl := deniedCacheTTL
		if status.Allowed {
			ttl = allowedCacheTTL
		}
		a.decisions.Add(key, status, ttl)
	}
	if status.Allowed && status.Denied {
		return false, status.Reason, errors.New("the SubjectAccessReview both allowed and denied")
	}
	return status.Allowed && !status.Denied, status.Reason, nil
}

// withRetries calls review within reviewTimeout, again after reviewBackoff while it fails
// with an error that k8s.io/apiserver's webhooks retry (DefaultShouldRetry).
func withRetries(ctx context.Context, review func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, reviewTimeout)
	defer cancel()
	var last error
	err := wait.ExponentialBackoffWithContext(ctx, reviewBackoff, func(ctx context.Context) (bool, error) {
		last = review(ctx)
		switch {
		case last == nil:
			return true, nil
		case transient(last):
			return false, nil
		default:
			return false, last
		}
	})
	if last != nil {
		return last
	}
	return err
}

// transient reports whether a review failed in a way worth retrying.
func transient(err error) bool {
	if utilnet.IsConnectionReset(err) || utilnet.IsHTTP2ConnectionLost(err) || apierrors.IsInternalError(err) ||
		apierrors.IsTimeout(err) || apierrors.IsTooManyRequests(err) {
		return true
	}
	_, retry := apierrors.SuggestsClientDelay(err)
	return retry
}
