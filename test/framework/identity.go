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

package framework

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// Token is a token of a service account, valid for an hour.
func Token(ctx context.Context, kube kubernetes.Interface, ns, name string) (string, error) {
	return token(ctx, kube, ns, name, time.Hour)
}

func token(ctx context.Context, kube kubernetes.Interface, ns, name string, lifetime time.Duration) (string, error) {
	token, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To(int64(lifetime.Seconds()))}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token of service account %s/%s: %w", ns, name, err)
	}
	return token.Status.Token, nil
}

// RotatedToken keeps a token of a service account in a file and replaces it with a new one
// at 80 % of its lifetime, as the kubelet does with a pod's projected service account
// token. A client that reads the file (client-go re-reads a kubeconfig's tokenFile every
// minute) never sends an expired token, however long it runs.
type RotatedToken struct {
	Path string // the token file

	mu  sync.Mutex
	ids []string
}

// NewRotatedToken writes a token of service account ns/name, valid for lifetime, to path
// and rotates it until ctx is done. A failed rotation is retried a minute later.
func NewRotatedToken(ctx context.Context, kube kubernetes.Interface, ns, name, path string, lifetime time.Duration) (*RotatedToken, error) {
	t := &RotatedToken{Path: path}
	if err := t.rotate(ctx, kube, ns, name, lifetime); err != nil {
		return nil, err
	}
	go func() {
		next := lifetime * 4 / 5
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(next):
			}
			next = lifetime * 4 / 5
			if err := t.rotate(ctx, kube, ns, name, lifetime); err != nil {
				next = time.Minute
			}
		}
	}()
	return t, nil
}

func (t *RotatedToken) rotate(ctx context.Context, kube kubernetes.Interface, ns, name string, lifetime time.Duration) error {
	token, err := token(ctx, kube, ns, name, lifetime)
	if err != nil {
		return err
	}
	id, err := CredentialID(token)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.ids = append(t.ids, id) // before the file holds it: no request goes unattributed
	t.mu.Unlock()
	tmp := t.Path + ".new"
	if err := os.WriteFile(tmp, []byte(token), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, t.Path)
}

// CredentialIDs are the CredentialIDs of every token written to the file.
func (t *RotatedToken) CredentialIDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Clone(t.ids)
}

// CredentialID is how kube-apiserver's audit events name a service account token (in
// user.extra "authentication.kubernetes.io/credential-id"): its JWT ID. Requests of two
// processes under one service account are told apart by their tokens.
func CredentialID(token string) (string, error) {
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

// WriteKubeconfig writes to path a kubeconfig for the API server at server (its CA caData)
// with the credentials of auth, in namespace ns (none when empty).
func WriteKubeconfig(path, server string, caData []byte, auth *clientcmdapi.AuthInfo, ns string) error {
	const name = "local"
	return clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{name: {Server: server, CertificateAuthorityData: caData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{name: auth},
		Contexts:       map[string]*clientcmdapi.Context{name: {Cluster: name, AuthInfo: name, Namespace: ns}},
		CurrentContext: name,
	}, path)
}
