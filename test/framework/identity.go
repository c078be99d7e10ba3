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
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/utils/ptr"
)

// Token is a token of a service account, valid for an hour.
func Token(ctx context.Context, kube kubernetes.Interface, ns, name string) (string, error) {
	token, err := kube.CoreV1().ServiceAccounts(ns).CreateToken(ctx, name,
		&authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)}}, metav1.CreateOptions{})
	if err != nil {
		return "", fmt.Errorf("token of service account %s/%s: %w", ns, name, err)
	}
	return token.Status.Token, nil
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
// with a bearer token, in namespace ns (none when empty).
func WriteKubeconfig(path, server string, caData []byte, token, ns string) error {
	const name = "local"
	return clientcmd.WriteToFile(clientcmdapi.Config{
		Clusters:       map[string]*clientcmdapi.Cluster{name: {Server: server, CertificateAuthorityData: caData}},
		AuthInfos:      map[string]*clientcmdapi.AuthInfo{name: {Token: token}},
		Contexts:       map[string]*clientcmdapi.Context{name: {Cluster: name, AuthInfo: name, Namespace: ns}},
		CurrentContext: name,
	}, path)
}
