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

// Package framework is what the end-to-end suite (test/e2e), the chaos suite (test/chaos) and
// the benchmark (hack/bench) share: the repository's root, commands and background processes
// with their logs, free ports, the local cluster (hack/local-cluster.sh), service-account
// kubeconfigs, and kube-apiserver's audit log. It returns errors rather than failing specs, so
// that the benchmark, which is no test, can use it; test/framework/suite adapts it to Ginkgo.
package framework

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// Root is the repository's root, absolute: the directory above the working directory that
// holds PROJECT. It panics outside the repository.
var Root = sync.OnceValue(func() string {
	dir, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "PROJECT")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			panic("no PROJECT file above the working directory: run from the repository")
		}
		dir = parent
	}
})

// Run runs a command in dir with stdin (none when nil) and env added to this process's
// environment, and returns its standard output. Its error carries the command line and both
// outputs.
func Run(dir string, stdin io.Reader, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("%s %s: %w\n%s%s", name, strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String(), nil
}

// FreePort is a TCP port free on the loopback interface.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("a TCP listener without a TCP address")
	}
	return addr.Port, nil
}

// LeaderElectionLease is the name of the Lease the operator's replicas elect a leader with:
// the one its leader election Role (config/rbac/leader_election_role.yaml) may update,
// which main_test.go checks is the one main.go uses.
func LeaderElectionLease() (string, error) {
	raw, err := os.ReadFile(filepath.Join(Root(), "config", "rbac", "leader_election_role.yaml"))
	if err != nil {
		return "", err
	}
	var role rbacv1.Role
	if err := yaml.Unmarshal(raw, &role); err != nil {
		return "", err
	}
	for _, rule := range role.Rules {
		if len(rule.ResourceNames) == 1 {
			return rule.ResourceNames[0], nil
		}
	}
	return "", errors.New("config/rbac/leader_election_role.yaml names no Lease")
}
