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
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Cluster is a local cluster of hack/local-cluster.sh: a real control plane with one node,
// simulated (kwok) or real (kubelet and containerd, hack/real-node.sh), and OLM if asked for.
type Cluster struct {
	// RealNode makes its node one that runs containers, with a registry that mirrors the
	// public registries the manifests name (hack/images.sh); false: a simulated node.
	RealNode bool
	// Images are the groups of hack/images.sh the real node's registry holds beside its
	// base, in order: "olm" (OLM v0, opm), "olmv1" (catalogd, operator-controller), "sdk"
	// (operator-sdk run bundle's and scorecard's, after olm).
	Images []string
	// SimulatedNode, with RealNode, adds a simulated node for pods that need not run, and
	// taints the real node with RealNodeTaint: only pods that tolerate it run there.
	SimulatedNode bool
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
	// ControllerManagerQPS, when set, is kube-controller-manager's --kube-api-qps (and twice
	// it its burst) in place of its default of 20.
	ControllerManagerQPS int
}

// RealNodeName is the name of the real node (hack/real-node.sh).
const RealNodeName = "real-node-0"

// RealNodeTaint is the key of the NoSchedule taint of a real node beside a simulated one
// (hack/local-cluster.sh sets it).
const RealNodeTaint = "foo-operator.example.com/real-node"

// AuditPolicyFile is the audit policy of test/framework: every request of the operator's
// service account, and every write of anyone.
func AuditPolicyFile() string { return filepath.Join(Root(), "test", "framework", "audit-policy.yaml") }

func (c *Cluster) script(verb string, extraEnv ...string) error {
	node := "kwok"
	if c.RealNode {
		node = "real"
	}
	env := []string{"LOCAL_CLUSTER_DIR=" + c.Dir, "LOCAL_CLUSTER_AUDIT_POLICY=" + c.AuditPolicy,
		"LOCAL_CLUSTER_METRICS_SERVER=" + strconv.FormatBool(!c.NoMetricsServer), "LOCAL_CLUSTER_NODE=" + node,
		"LOCAL_CLUSTER_SIMULATED_NODE=" + strconv.FormatBool(c.SimulatedNode), "LOCAL_CLUSTER_IMAGES=" + strings.Join(c.Images, " ")}
	if c.NodePods > 0 {
		env = append(env, "LOCAL_CLUSTER_NODE_PODS="+strconv.Itoa(c.NodePods))
	}
	if c.ControllerManagerQPS > 0 {
		env = append(env, "LOCAL_CLUSTER_KCM_QPS="+strconv.Itoa(c.ControllerManagerQPS))
	}
	_, err := Run(Root(), nil, append(env, extraEnv...), "hack/local-cluster.sh", verb)
	return err
}

// Up starts the cluster (or the one its directory holds).
func (c *Cluster) Up() error { return c.script("up") }

// OLMUp installs OLM into the running cluster and starts its operators.
func (c *Cluster) OLMUp() error { return c.script("olm-up") }

// OLMv1Up deploys OLM v1 (catalogd and operator-controller) into a running cluster with a
// real node, or changes the feature gates of the one it runs: featureGates is
// operator-controller's --feature-gates, "" for its defaults.
func (c *Cluster) OLMv1Up(featureGates string) error {
	return c.script("olmv1-up", "OLMV1_FEATURE_GATES="+featureGates)
}

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

// Component is a process of the cluster that kwokctl (runtime binary) started and tracks by
// a pid file: etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok-controller
// and metrics-server where it runs.
type Component struct {
	Name, Dir, PidFile, Log string
}

// Components are the cluster's processes, one per pid file kwokctl wrote.
func (c *Cluster) Components() ([]Component, error) {
	dir, err := c.ComponentsDir()
	if err != nil {
		return nil, err
	}
	pidFiles, err := filepath.Glob(filepath.Join(dir, "pids", "*.pid"))
	if err != nil || len(pidFiles) == 0 {
		return nil, fmt.Errorf("the pid files of %s: %v (%v)", dir, pidFiles, err)
	}
	components := make([]Component, 0, len(pidFiles))
	for _, f := range pidFiles {
		name := strings.TrimSuffix(filepath.Base(f), ".pid")
		components = append(components, Component{Name: name, Dir: dir, PidFile: f, Log: filepath.Join(dir, "logs", name+".log")})
	}
	return components, nil
}

// Pid is the process's id, from its pid file.
func (c Component) Pid() (int, error) {
	raw, err := os.ReadFile(c.PidFile)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(raw)))
}

// Running reports whether the process is alive: neither gone nor a zombie (the machine's
// init does not reap the processes kwokctl leaves to it).
func (c Component) Running() bool {
	pid, err := c.Pid()
	if err != nil {
		return false
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// pid (comm) state ...
	fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

// AuditLog is the path of kube-apiserver's audit log.
func (c *Cluster) AuditLog() (string, error) {
	dir, err := c.ComponentsDir()
	return filepath.Join(dir, "logs", "audit.log"), err
}

// Registry is the host:port of a real node's registry.
func (c *Cluster) Registry() (string, error) {
	raw, err := os.ReadFile(filepath.Join(c.Dir, "registry"))
	return strings.TrimSpace(string(raw)), err
}

// CABundle is a file of the host's CA certificates and the registry's CA: clients that
// pull from the registry on the host take it as SSL_CERT_FILE.
func (c *Cluster) CABundle() string { return filepath.Join(c.Dir, "ca-bundle.crt") }

// InRegistry is ref (quay.io/example/foo:v1) as the registry serves it
// (<registry>/example/foo:v1): what the node pulls when a manifest names ref.
func InRegistry(registry, ref string) string {
	_, path, _ := strings.Cut(ref, "/")
	return registry + "/" + path
}

// BuildImage builds image ref from dockerfile and context with podman and pushes it to the
// cluster's registry (hack/images.sh build).
func (c *Cluster) BuildImage(ref, dockerfile, context string) error {
	return c.images("build", ref, dockerfile, context)
}

// BuildOperatorImage builds the operator's image as ref (hack/images.sh operator).
func (c *Cluster) BuildOperatorImage(ref string) error { return c.images("operator", ref) }

func (c *Cluster) images(args ...string) error {
	registry, err := c.Registry()
	if err != nil {
		return err
	}
	_, err = Run(Root(), nil, []string{"REGISTRY=" + registry}, "hack/images.sh", args...)
	return err
}
