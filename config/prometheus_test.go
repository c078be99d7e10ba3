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

package config_test

import (
	"cmp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/onsi/gomega"
	"sigs.k8s.io/yaml"
)

// rulesFile is the name alerts_test.yaml loads the PrometheusRule's groups from.
const rulesFile = "foo-operator.rules.yaml"

// TestAlertRules runs promtool's unit tests of the alerts (prometheus/alerts_test.yaml) on
// the groups of the PrometheusRule that kustomize builds, and checks that each alert has a
// runbook in docs/runbooks/ and is tested both firing and not firing. promtool is
// $PROMTOOL, or bin/promtool, which make test builds from Prometheus's pinned Go module.
func TestAlertRules(t *testing.T) {
	g := NewWithT(t)
	promtool, err := filepath.Abs(cmp.Or(os.Getenv("PROMTOOL"), filepath.Join("..", "bin", "promtool")))
	g.Expect(err).NotTo(HaveOccurred())
	if _, err := os.Stat(promtool); err != nil {
		t.Fatalf("promtool: %v (make promtool builds it)", err)
	}

	rules := build(t, "prometheus")["PrometheusRule"]
	g.Expect(rules).To(HaveLen(1))
	groups, err := yaml.Marshal(rules[0]["spec"])
	g.Expect(err).NotTo(HaveOccurred())
	dir := t.TempDir()
	g.Expect(os.WriteFile(filepath.Join(dir, rulesFile), groups, 0o600)).To(Succeed())
	tests, err := os.ReadFile(filepath.Join("prometheus", "alerts_test.yaml"))
	g.Expect(err).NotTo(HaveOccurred())
	g.Expect(os.WriteFile(filepath.Join(dir, "alerts_test.yaml"), tests, 0o600)).To(Succeed())

	cmd := exec.Command(promtool, "test", "rules", "alerts_test.yaml")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("promtool test rules: %v\n%s", err, out)
	}

	var spec struct {
		Groups []struct {
			Rules []struct {
				Alert       string            `json:"alert"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	}
	g.Expect(yaml.Unmarshal(groups, &spec)).To(Succeed())
	// OLM v1 (operator-controller v1.2, test/e2e) renders a bundle's objects as Helm templates:
	// a Prometheus template in an annotation makes it refuse the bundle.
	g.Expect(string(groups)).NotTo(ContainSubstring("{{"), "no template in the rules")
	var unitTests struct {
		Tests []struct {
			AlertRuleTest []struct {
				AlertName string `json:"alertname"`
				ExpAlerts []any  `json:"exp_alerts"`
			} `json:"alert_rule_test"`
		} `json:"tests"`
	}
	g.Expect(yaml.Unmarshal(tests, &unitTests)).To(Succeed())
	firing, quiet := map[string]bool{}, map[string]bool{}
	for _, test := range unitTests.Tests {
		for _, a := range test.AlertRuleTest {
			if len(a.ExpAlerts) > 0 {
				firing[a.AlertName] = true
			} else {
				quiet[a.AlertName] = true
			}
		}
	}
	alerts := 0
	for _, group := range spec.Groups {
		for _, rule := range group.Rules {
			if rule.Alert == "" {
				continue
			}
			alerts++
			runbook := filepath.Join("docs", "runbooks", rule.Alert+".md")
			g.Expect(rule.Annotations["runbook_url"]).To(HaveSuffix("/blob/main/"+runbook), rule.Alert)
			g.Expect(filepath.Join("..", runbook)).To(BeAnExistingFile(), rule.Alert)
			g.Expect(firing).To(HaveKey(rule.Alert), "%s is not tested firing", rule.Alert)
			g.Expect(quiet).To(HaveKey(rule.Alert), "%s is not tested quiet", rule.Alert)
			g.Expect(strings.TrimSpace(rule.Annotations["summary"])).NotTo(BeEmpty(), rule.Alert)
		}
	}
	g.Expect(alerts).To(BeNumerically(">", 0))
}
