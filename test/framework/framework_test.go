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
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	. "github.com/onsi/gomega"
)

func TestRunErrorCarriesTheCommandAndItsOutput(t *testing.T) {
	g := NewWithT(t)
	out, err := Run(t.TempDir(), strings.NewReader("in"), []string{"WORD=env"}, "sh", "-c", `cat; echo " $WORD"; echo oops >&2; exit 3`)
	g.Expect(out).To(Equal("in env\n"))
	g.Expect(err).To(MatchError(SatisfyAll(ContainSubstring("sh -c"), ContainSubstring("exit status 3"), ContainSubstring("in env"), ContainSubstring("oops"))))
}

func TestCredentialID(t *testing.T) {
	g := NewWithT(t)
	claims := base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"system:serviceaccount:a:b","jti":"6a1b"}`))
	g.Expect(CredentialID("header." + claims + ".signature")).To(Equal("JTI=6a1b"))
	_, err := CredentialID("not-a-jwt")
	g.Expect(err).To(HaveOccurred())
	_, err = CredentialID("h." + base64.RawURLEncoding.EncodeToString([]byte(`{"sub":"x"}`)) + ".s")
	g.Expect(err).To(MatchError(ContainSubstring("no jti")))
}

func TestAuditLog(t *testing.T) {
	g := NewWithT(t)
	// Three events as kube-apiserver writes them, one a line: a write with the token JTI=a,
	// a read with it that the authorizer refused, and a write of another client.
	lines := []string{
		`{"verb":"patch","userAgent":"foo-operator","user":{"username":"system:serviceaccount:ns:sa","extra":{"authentication.kubernetes.io/credential-id":["JTI=a"]}},"objectRef":{"apiGroup":"apps","namespace":"x","name":"web","resource":"deployments"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-24T10:00:01.000000Z","annotations":{"authorization.k8s.io/decision":"allow"}}`,
		`{"verb":"get","userAgent":"foo-operator","user":{"username":"system:serviceaccount:ns:sa","extra":{"authentication.kubernetes.io/credential-id":["JTI=a"]}},"objectRef":{"apiGroup":"apps","namespace":"x","name":"web","resource":"deployments"},"responseStatus":{"code":403},"requestReceivedTimestamp":"2026-11-24T10:00:02.000000Z","annotations":{"authorization.k8s.io/decision":"forbid"}}`,
		`{"verb":"update","userAgent":"kube-controller-manager/v1.35.4","user":{"username":"system:kube-controller-manager"},"objectRef":{"apiGroup":"apps","namespace":"x","name":"web","resource":"deployments","subresource":"status"},"responseStatus":{"code":200},"requestReceivedTimestamp":"2026-11-24T10:00:03.000000Z"}`,
	}
	// kube-apiserver rotated the log twice: the first event is in the older backup, the
	// second in the newer one, the third in the log itself.
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.log")
	g.Expect(os.WriteFile(filepath.Join(dir, "audit-2026-11-24T10-00-01.500.log"), []byte(lines[0]+"\n"), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(filepath.Join(dir, "audit-2026-11-24T10-00-02.500.log"), []byte(lines[1]+"\n"), 0o600)).To(Succeed())
	g.Expect(os.WriteFile(path, []byte(lines[2]+"\n"), 0o600)).To(Succeed())

	events, err := ReadAudit(path)
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(events).To(HaveLen(3))
	g.Expect(events[0].Verb).To(Equal("patch"), "the backups first, the oldest first")
	g.Expect(events[1].Verb).To(Equal("get"))
	g.Expect(events[2].Resource()).To(Equal("apps/deployments/status"))
	g.Expect([]bool{events[0].Unauthorized(), events[1].Unauthorized()}).To(Equal([]bool{false, true}))
	g.Expect(events.ByCredential("JTI=a")).To(HaveLen(2))
	g.Expect(events.ByCredential("JTI=a").Writes().Count()).To(Equal(map[string]int{"patch apps/deployments": 1}))
	g.Expect(events.ByUserAgent("kube-controller-manager/").Count()).To(Equal(map[string]int{"update apps/deployments/status": 1}))
	at := func(s int) time.Time { return time.Date(2026, 11, 24, 10, 0, s, 0, time.UTC) }
	g.Expect(events.Between(at(2), at(3))).To(ConsistOf(HaveField("Verb", "get")), "from inclusive, to exclusive")

	g.Expect(os.WriteFile(path, []byte(lines[2]+"\n"+lines[0][:80]), 0o600)).To(Succeed())
	events, err = ReadAudit(path)
	g.Expect(err).NotTo(HaveOccurred(), "a last line without its newline is still being written")
	g.Expect(events).To(HaveLen(3))

	g.Expect(os.WriteFile(path, []byte("not json\n"), 0o600)).To(Succeed())
	_, err = ReadAudit(path)
	g.Expect(err).To(MatchError(ContainSubstring(path)))
	g.Expect(os.Remove(path)).To(Succeed())
	_, err = ReadAudit(path)
	g.Expect(err).To(HaveOccurred(), "the log itself is always there")
}

func TestComponentsRunningOrExited(t *testing.T) {
	g := NewWithT(t)
	c := &Cluster{Dir: t.TempDir()}
	_, err := c.Components()
	g.Expect(err).To(HaveOccurred(), "a cluster without its kwokctl directory")

	dir := filepath.Join(c.Dir, "clusters", "foo-1")
	g.Expect(os.MkdirAll(filepath.Join(dir, "pids"), 0o755)).To(Succeed())
	exited := exec.Command("true")
	g.Expect(exited.Run()).To(Succeed()) // reaped: its pid names no process
	for name, pid := range map[string]int{"kube-apiserver": os.Getpid(), "kube-controller-manager": exited.Process.Pid} {
		g.Expect(os.WriteFile(filepath.Join(dir, "pids", name+".pid"), []byte(strconv.Itoa(pid)+"\n"), 0o644)).To(Succeed())
	}
	components, err := c.Components()
	g.Expect(err).NotTo(HaveOccurred())
	running := map[string]bool{}
	for _, component := range components {
		g.Expect(component.Log).To(Equal(filepath.Join(dir, "logs", component.Name+".log")))
		running[component.Name] = component.Running()
	}
	g.Expect(running).To(Equal(map[string]bool{"kube-apiserver": true, "kube-controller-manager": false}))
}
