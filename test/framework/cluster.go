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
	"fmt"
	"path/filepath"
	"strconv"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a local cluster of hack/local-cluster.sh: a real control plane with simulated
// nodes (kwok), and OLM if asked for.
type Cluster struct {
	// Dir holds its state and kubeconfig (LOCAL_CLUSTER_DIR); its name derives from it, so
	// clusters of different directories run side by side.
	Dir string
	// AuditPolicy, when set, makes kube-apiserver write an audit log with that policy
	// (AuditPolicyFile is the one the suites and the benchmark share).
	AuditPolicy string
	// NoMetricsServer leaves metrics-server out: where no HPA runs, its scrapes of many
	// pods would only add load.
	NoMetricsServer bool
	// NodePods is the simulated node's pod capacity; 110 when zero.
	NodePods int
}

// AuditPolicyFile is the audit policy of test/framework: every request of the operator's
// service account, and every write of anyone.
func AuditPolicyFile() string { return filepath.Join(Root(), "test", "framework", "audit-policy.yaml") }

func (c *Cluster) script(verb string) error {
	env := []string{"LOCAL_CLUSTER_DIR=" + c.Dir, "LOCAL_CLUSTER_AUDIT_POLICY=" + c.AuditPolicy,
		"LOCAL_CLUSTER_METRICS_SERVER=" + strconv.FormatBool(!c.NoMetricsServer)}
	if c.NodePods > 0 {
		env = append(env, "LOCAL_CLUSTER_NODE_PODS="+strconv.Itoa(c.NodePods))
	}
	_, err := Run(Root(), nil, env, "hack/local-cluster.sh", verb)
	return err
}

// Up starts the cluster (or the one its directory holds).
func (c *Cluster) Up() error { return c.script("up") }

// OLMUp installs OLM into the running cluster and starts its operators.
func (c *Cluster) OLMUp() error { return c.script("olm-up") }

// Down stops the cluster and OLM and deletes their state.
func (c *Cluster) Down() error { return c.script("down") }

// Kubeconfig is the path of the cluster's admin kubeconfig.
func (c *Cluster) Kubeconfig() string { return filepath.Join(c.Dir, "kubeconfig") }

// Config is the client configuration of the cluster's admin.
func (c *Cluster) Config() (*rest.Config, error) {
	return clientcmd.BuildConfigFromFlags("", c.Kubeconfig())
}

// ComponentsDir is where kwokctl keeps the cluster's pid files and logs.
func (c *Cluster) ComponentsDir() (string, error) {
	dirs, err := filepath.Glob(filepath.Join(c.Dir, "clusters", "*"))
	if err != nil || len(dirs) != 1 {
		return "", fmt.Errorf("one cluster under %s, found %v (%v)", c.Dir, dirs, err)
	}
	return dirs[0], nil
}

// AuditLog is the path of kube-apiserver's audit log.
func (c *Cluster) AuditLog() (string, error) {
	dir, err := c.ComponentsDir()
	return filepath.Join(dir, "logs", "audit.log"), err
}
