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
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
)

// TestRealNodeCheckSaysInOneLineWhatIsMissing runs hack/real-node.sh check where a real node
// cannot run, and expects it to stop at once (exit 3) with one line that names what is
// missing and how to get it.
func TestRealNodeCheckSaysInOneLineWhatIsMissing(t *testing.T) {
	script := filepath.Join(Root(), "hack", "real-node.sh")
	check := func(t *testing.T, env []string, command ...string) string {
		g := NewWithT(t)
		cmd := exec.Command(command[0], command[1:]...)
		cmd.Env = append(os.Environ(), append(env, "LOCAL_CLUSTER_DIR="+t.TempDir())...)
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		g.Expect(errors.As(err, &exit)).To(BeTrue(), "check passed: %s", out)
		g.Expect(exit.ExitCode()).To(Equal(3), string(out))
		g.Expect(strings.Count(strings.TrimSpace(string(out)), "\n")).To(BeZero(), "one line: %s", out)
		return string(out)
	}

	notRoot := []string{script, "check"}
	if os.Geteuid() == 0 {
		notRoot = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, notRoot...)
	}
	type checkCase struct {
		name         string
		env, command []string
		says         string
	}
	cases := []checkCase{{"without root", nil, notRoot, "need root; run as root or use the simulated node"}}
	if os.Geteuid() == 0 { // else the root check stops it first: the case above
		// A PATH of only what the script runs before it looks for the node's packages, so
		// that containerd is missing whether this machine has it or not.
		path := t.TempDir()
		for _, cmd := range []string{"bash", "dirname", "uname", "id"} {
			found, err := exec.LookPath(cmd)
			NewWithT(t).Expect(err).NotTo(HaveOccurred())
			NewWithT(t).Expect(os.Symlink(found, filepath.Join(path, cmd))).To(Succeed())
		}
		cases = append(cases, checkCase{"without containerd", []string{"PATH=" + path}, []string{script, "check"},
			"containerd is missing: make node-packages (installs Debian's containerd)"})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			NewWithT(t).Expect(check(t, c.env, c.command...)).To(ContainSubstring(c.says))
		})
	}
}
