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

package suite

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/onsi/ginkgo/v2"
	"github.com/onsi/gomega"

	"github.com/example/foo-operator/test/framework"
)

// CopyTree copies the checkout (tracked and untracked files, as make test-scaffold does, with
// their times, so make rebuilds nothing) into work/trees/name, sharing bin/, and
// returns it.
func CopyTree(work, name string) string {
	ginkgo.GinkgoHelper()
	dir := filepath.Join(work, "trees", name)
	gomega.Expect(os.MkdirAll(dir, 0o755)).To(gomega.Succeed())
	Run(framework.Root(), nil, "bash", "-c",
		`git ls-files --cached --others --exclude-standard | tar -cf - -T - | tar -xf - -C "$1"`, "copy", dir)
	gomega.Expect(os.Symlink(filepath.Join(framework.Root(), "bin"), filepath.Join(dir, "bin"))).To(gomega.Succeed())
	return dir
}

// ReplaceInFile replaces old, which file must hold, with new in file.
func ReplaceInFile(file, old, new string) {
	ginkgo.GinkgoHelper()
	raw := ReadFile(file)
	gomega.Expect(raw).To(gomega.ContainSubstring(old))
	gomega.Expect(os.WriteFile(file, []byte(strings.ReplaceAll(raw, old, new)), 0o644)).To(gomega.Succeed())
}

// ReadFile is file's content.
func ReadFile(file string) string {
	ginkgo.GinkgoHelper()
	raw, err := os.ReadFile(file)
	gomega.Expect(err).NotTo(gomega.HaveOccurred())
	return string(raw)
}
