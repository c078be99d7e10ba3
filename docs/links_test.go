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

// Package docs holds the repository's documentation; its test checks the
// relative links and anchors of every Markdown file of the repository.
package docs

import (
	"fmt"
	"html"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// TestMarkdownLinks checks every relative link and image of the repository's
// Markdown files, inline ([text](target)), reference definitions ([id]: target)
// and <a href>/<img src>, outside code blocks and code spans: the file or
// directory must be in the repository and an anchor (#anchor, file.md#anchor)
// must name a heading, as GitHub makes its ids, or an explicit <a name>/id.
// Absolute URLs are not followed.
func TestMarkdownLinks(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	r, err := loadRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.markdown) == 0 {
		t.Fatalf("no Markdown files found in %s", root)
	}
	var problems []string
	checked := 0
	for _, name := range r.markdown {
		doc, err := r.doc(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range doc.links {
			checked++
			if reason := r.check(name, l.target); reason != "" {
				problems = append(problems, fmt.Sprintf("%s:%d: %s: %s", name, l.line, l.target, reason))
			}
		}
	}
	t.Logf("%d links in %d Markdown files (%s)", checked, len(r.markdown), r.source)
	if len(problems) > 0 {
		t.Errorf("%d broken links:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

func TestSlugs(t *testing.T) {
	doc := parse(strings.Join([]string{
		"# Foo Operator",
		"## Install: OLM v0 and OLM v1 side by side",
		"## What users run, on the local cluster's real node",
		"## How long `.ci/run` takes: measurement history",
		"## 100 Foos, client limits 5/10",
		"## Memory per Foo (B6, the slope of the medians)",
		"## [Linked](other.md) _emphasis_ and snake_case \\_x &amp; ü ##",
		"## Foo Operator",
		"## Foo Operator",
		"Setext heading",
		"==============",
		`<a name="explicit"></a> <span id='also'>`,
		"```",
		"## Not a heading",
		"```",
	}, "\n"))
	for _, want := range []string{
		"foo-operator",
		"install-olm-v0-and-olm-v1-side-by-side",
		"what-users-run-on-the-local-clusters-real-node",
		"how-long-cirun-takes-measurement-history",
		"100-foos-client-limits-510",
		"memory-per-foo-b6-the-slope-of-the-medians",
		"linked-emphasis-and-snake_case-_x--ü",
		"foo-operator-1",
		"foo-operator-2",
		"setext-heading",
		"explicit",
		"also",
	} {
		if !doc.anchors[want] {
			t.Errorf("no anchor %q among %v", want, doc.anchors)
		}
	}
	if doc.anchors["not-a-heading"] {
		t.Error("a heading in a code block made an anchor")
	}
}

func TestLinkExtraction(t *testing.T) {
	doc := parse(strings.Join([]string{
		"[a](a.md) ![b](b.svg \"title\") [c](<c d.md>) [nested ![i](i.png)](n.md#x)",
		"`[code](code.md)` ``[code](code.md) ` `` [e](https://example.com) [f](f\\(1\\).md)",
		"[multi",
		"line](m.md)",
		"```sh",
		"[fenced](fenced.md)",
		"```",
		"   [ref]: r.md \"title\"",
		"[^note]: a footnote",
		`<a href="h.md">h</a> <!-- [comment](comment.md) --> \[escaped](not.md)`,
		"'[a-z]([-a-z]*[a-z])?'",
	}, "\n"))
	want := []link{
		{1, "a.md"}, {1, "b.svg"}, {1, "c d.md"}, {1, "n.md#x"}, {1, "i.png"},
		{2, "https://example.com"}, {2, "f(1).md"},
		{4, "m.md"},
		{8, "r.md"},
		{10, "h.md"},
		{11, "[-a-z]*[a-z]"},
	}
	if !slices.Equal(doc.links, want) {
		t.Errorf("links:\n got %v\nwant %v", doc.links, want)
	}
}

func TestCheck(t *testing.T) {
	root := t.TempDir() // not a git work tree: the files are found by walking
	for name, content := range map[string]string{
		"go.mod":     "module example.com/x\n",
		"a.md":       "# A\n",
		"dir/b.md":   "## Some heading\n",
		"dir/c.txt":  "",
		"bin/bin.md": "[ignored](nowhere.md)\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := loadRepo(root)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"a.md", "dir/b.md"}; !slices.Equal(r.markdown, want) {
		t.Errorf("Markdown files %v, want %v", r.markdown, want)
	}
	for target, want := range map[string]string{
		"https://example.com/x.md":       "",
		"mailto:someone@example.com":     "",
		"#a":                             "",
		"#b":                             `no heading or anchor "b" in a.md`,
		"dir":                            "",
		"dir/":                           "",
		"dir/c.txt#L1":                   "",
		"dir/b.md#some-heading":          "",
		"/dir/b.md?plain=1#some-heading": "",
		"dir/b.md#some%20heading":        `no heading or anchor "some heading" in dir/b.md`,
		"dir/missing.md":                 "no such file or directory",
		"../a.md":                        "outside the repository",
	} {
		if got := r.check("a.md", target); got != want {
			t.Errorf("check(%q) = %q, want %q", target, got, want)
		}
	}
}

// repoRoot is the nearest directory above the working directory (the
// package's) that holds a go.mod.
func repoRoot() (string, error) {
	dir, err := filepath.Abs(".")
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// repo is the set of files a link may point at and the Markdown files to check.
type repo struct {
	root   string
	source string
	// files and dirs are the files git lists (tracked, or untracked and not
	// ignored) and their directories, slash-separated and relative to root;
	// nil when git cannot list them, and then any file on disk counts.
	files, dirs map[string]bool
	markdown    []string
	docs        map[string]*document
}

func loadRepo(root string) (*repo, error) {
	r := &repo{root: root, docs: map[string]*document{}}
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	listed := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	if err == nil && slices.Contains(listed, "go.mod") {
		r.source = "git ls-files"
		r.files, r.dirs = map[string]bool{}, map[string]bool{}
		for _, f := range listed {
			r.files[f] = true
			for d := path.Dir(f); d != "."; d = path.Dir(d) {
				r.dirs[d] = true
			}
			if isMarkdown(f) && !skipped(f) {
				r.markdown = append(r.markdown, f)
			}
		}
		slices.Sort(r.markdown)
		return r, nil
	}
	// Not a git work tree (or root is ignored in it): walk the tree instead.
	r.source = "walk, without git"
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() && rel != "." && (strings.HasPrefix(d.Name(), ".") || rel == "bin" || skipped(rel+"/")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && isMarkdown(rel) {
			r.markdown = append(r.markdown, rel)
		}
		return nil
	})
	return r, err
}

// skipped tells the Markdown files not to check: vendored ones and test fixtures.
func skipped(name string) bool {
	for _, dir := range strings.Split(path.Dir(name), "/") {
		if dir == "vendor" || dir == "node_modules" || dir == "testdata" {
			return true
		}
	}
	return false
}

func isMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

func (r *repo) doc(name string) (*document, error) {
	if d, ok := r.docs[name]; ok {
		return d, nil
	}
	src, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(name)))
	if err != nil {
		return nil, err
	}
	d := parse(string(src))
	r.docs[name] = d
	return d, nil
}

var scheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)

// check tells why target, a link in Markdown file from, is broken, or "".
func (r *repo) check(from, target string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	p, frag, _ := strings.Cut(target, "#")
	p, _, _ = strings.Cut(p, "?")
	p, err := url.PathUnescape(p)
	if err != nil {
		return err.Error()
	}
	dest := from
	if p != "" {
		if strings.HasPrefix(p, "/") {
			dest = path.Clean(strings.TrimLeft(p, "/"))
		} else {
			dest = path.Join(path.Dir(from), p)
		}
		if dest == ".." || strings.HasPrefix(dest, "../") {
			return "outside the repository"
		}
		if reason := r.exists(dest); reason != "" {
			return reason
		}
	}
	if frag == "" || !isMarkdown(dest) {
		// Anchors of other files (GitHub's #L10 of source files) are not checked.
		return ""
	}
	if frag, err = url.PathUnescape(frag); err != nil {
		return err.Error()
	}
	d, err := r.doc(dest)
	if err != nil {
		return err.Error()
	}
	if !d.anchors[frag] && !d.anchors[strings.TrimPrefix(frag, "user-content-")] {
		return fmt.Sprintf("no heading or anchor %q in %s", frag, dest)
	}
	return ""
}

// exists tells why name is not a file or directory of the repository, or "".
func (r *repo) exists(name string) string {
	_, err := os.Stat(filepath.Join(r.root, filepath.FromSlash(name)))
	switch {
	case err != nil:
		return "no such file or directory"
	case r.files != nil && name != "." && !r.files[name] && !r.dirs[name]:
		return "not in the repository (ignored by git)"
	}
	return ""
}

// link is a link target and the line it is on.
type link struct {
	line   int
	target string
}

// document is what a Markdown file links to and the anchors it defines.
type document struct {
	links   []link
	anchors map[string]bool
}

var (
	fence       = regexp.MustCompile("^[ \t]*(`{3,}|~{3,})(.*)$")
	atxHeading  = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$`)
	atxClosing  = regexp.MustCompile(`(?:^|[ \t]+)#+$`)
	setextLine  = regexp.MustCompile(`^ {0,3}(?:=+|-+)[ \t]*$`)
	notSetext   = regexp.MustCompile(`^[ \t]*(?:[-+*>|]|\d+[.)])`)
	htmlComment = regexp.MustCompile(`(?s)<!--.*?-->`)
	refDef      = regexp.MustCompile(`(?m)^ {0,3}\[((?:[^\]\\]|\\.)+)\]:[ \t]*(?:<([^>\n]*)>|(\S+))`)
	htmlLink    = regexp.MustCompile(`(?i)<(?:a|img|source)\s[^>]*?\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
	htmlAnchor  = regexp.MustCompile(`(?i)<(?:a\b[^>]*?\sname|[a-z][a-z0-9-]*\b[^>]*?\sid)\s*=\s*(?:"([^"]*)"|'([^']*)')`)
)

// parse finds the links and anchors of a Markdown file, skipping fenced code
// blocks, code spans and HTML comments.
func parse(src string) *document {
	lines := strings.Split(strings.ReplaceAll(src, "\r\n", "\n"), "\n")
	maskFences(lines)
	d := &document{anchors: map[string]bool{}}
	headings(lines, d.anchors)

	// Blank code spans block by block (they cannot cross a blank line, a
	// heading or a table row), keeping every offset and newline.
	var text strings.Builder
	for start := 0; start < len(lines); {
		end := start + 1
		if !singleLineBlock(lines[start]) && strings.TrimSpace(lines[start]) != "" {
			for end < len(lines) && strings.TrimSpace(lines[end]) != "" && !singleLineBlock(lines[end]) {
				end++
			}
		}
		text.WriteString(blankCodeSpans(strings.Join(lines[start:end], "\n")))
		text.WriteByte('\n')
		start = end
	}
	s := htmlComment.ReplaceAllStringFunc(text.String(), blank)

	lineAt := func(offset int) int { return 1 + strings.Count(s[:offset], "\n") }
	d.links = inlineLinks(s, lineAt)
	for _, m := range refDef.FindAllStringSubmatchIndex(s, -1) {
		if s[m[2]] == '^' { // a footnote
			continue
		}
		at := m[6]
		if m[4] >= 0 {
			at = m[4]
		}
		d.links = append(d.links, link{lineAt(at), unescape(s[at:max(m[5], m[7])])})
	}
	for _, m := range htmlLink.FindAllStringSubmatchIndex(s, -1) {
		at := m[2]
		if at < 0 {
			at = m[4]
		}
		d.links = append(d.links, link{lineAt(at), html.UnescapeString(s[at:max(m[3], m[5])])})
	}
	for _, m := range htmlAnchor.FindAllStringSubmatch(s, -1) {
		d.anchors[m[1]+m[2]] = true
	}
	slices.SortStableFunc(d.links, func(a, b link) int { return a.line - b.line })
	return d
}

// maskFences empties the lines of fenced code blocks, fences included.
func maskFences(lines []string) {
	open := ""
	for i, l := range lines {
		m := fence.FindStringSubmatch(l)
		switch {
		case open == "" && m != nil && (m[1][0] != '`' || !strings.Contains(m[2], "`")):
			open = m[1]
		case open != "" && m != nil && m[1][0] == open[0] && len(m[1]) >= len(open) && strings.TrimSpace(m[2]) == "":
			open = ""
		case open == "":
			continue
		}
		lines[i] = ""
	}
}

func singleLineBlock(l string) bool {
	return atxHeading.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "|")
}

// headings adds the anchors GitHub makes of the headings: the slug of the
// heading's text, with -1, -2... on the second, third... of the same slug.
func headings(lines []string, anchors map[string]bool) {
	seen := map[string]int{}
	add := func(text string) {
		s := slug(headingText(text))
		if n := seen[s]; n > 0 {
			seen[s]++
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			seen[s] = 1
		}
		anchors[s] = true
	}
	para := -1 // first line of the current paragraph, or -1
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
			para = -1
		case atxHeading.MatchString(l):
			m := atxHeading.FindStringSubmatch(l)
			add(atxClosing.ReplaceAllString(m[2], ""))
			para = -1
		case para >= 0 && setextLine.MatchString(l):
			add(strings.Join(lines[para:i], " "))
			para = -1
		case para < 0 && !notSetext.MatchString(l):
			para = i
		}
	}
}

var (
	image        = regexp.MustCompile(`!\[[^\]]*\]\([^)]*\)`)
	inlineLink   = regexp.MustCompile(`\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])`)
	htmlTag      = regexp.MustCompile(`</?[a-zA-Z][^>]*>`)
	escape       = regexp.MustCompile("\\\\([!-/:-@\\[-`{-~])")
	emphasisMark = regexp.MustCompile(`(^|[^\pL\pN])[_*]+|[_*]+($|[^\pL\pN])`)
	placeholder  = regexp.MustCompile("[\uE000-\uF8FF]")
)

// headingText is the text of a heading as GitHub renders it: code spans'
// content, links' text, no images, HTML tags or emphasis marks.
func headingText(s string) string {
	// Set code spans and escaped characters aside as private-use runes.
	var kept []string
	keep := func(lit string) string {
		kept = append(kept, lit)
		return string(rune(0xE000 + len(kept) - 1))
	}
	var b strings.Builder
	last := 0
	for _, span := range codeSpans(s) {
		code := strings.ReplaceAll(s[span[0]:span[1]], "\n", " ")
		code = strings.Trim(code, "`")
		if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.TrimSpace(code) != "" {
			code = code[1 : len(code)-1]
		}
		b.WriteString(s[last:span[0]])
		b.WriteString(keep(code))
		last = span[1]
	}
	b.WriteString(s[last:])
	s = escape.ReplaceAllStringFunc(b.String(), func(e string) string { return keep(e[1:]) })
	s = image.ReplaceAllString(s, "")
	s = inlineLink.ReplaceAllString(s, "$1")
	s = htmlTag.ReplaceAllString(s, "")
	s = emphasisMark.ReplaceAllString(s, "$1$2")
	s = html.UnescapeString(s)
	return placeholder.ReplaceAllStringFunc(s, func(p string) string {
		if i := int([]rune(p)[0] - 0xE000); i < len(kept) {
			return kept[i]
		}
		return p
	})
}

// slug is GitHub's id of a heading's text: lowercase, without anything but
// letters, marks, digits, connector punctuation (_), hyphens and spaces, the
// spaces made hyphens.
func slug(text string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case r == '-' || unicode.IsLetter(r) || unicode.IsMark(r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Pc, r):
			return r
		}
		return -1
	}, strings.ToLower(strings.TrimSpace(text)))
}

// codeSpans are the [start, end) of the code spans of a block, backticks
// included.
func codeSpans(s string) [][2]int {
	var spans [][2]int
	run := func(i int) int {
		n := 0
		for i+n < len(s) && s[i+n] == '`' {
			n++
		}
		return n
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\':
			i += 2
			continue
		case s[i] != '`':
			i++
			continue
		}
		n := run(i)
		end := -1
		for j := i + n; j < len(s) && end < 0; {
			if s[j] != '`' {
				j++
				continue
			}
			m := run(j)
			if m == n {
				end = j + m
			}
			j += m
		}
		if end < 0 {
			i += n // literal backticks
			continue
		}
		spans = append(spans, [2]int{i, end})
		i = end
	}
	return spans
}

// blankCodeSpans replaces the code spans of a block by spaces.
func blankCodeSpans(s string) string {
	for _, span := range codeSpans(s) {
		s = s[:span[0]] + blank(s[span[0]:span[1]]) + s[span[1]:]
	}
	return s
}

// blank replaces every byte but newlines by a space.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// inlineLinks finds the [text](target) and ![alt](target) of s.
func inlineLinks(s string, lineAt func(int) int) []link {
	var links []link
	// Brackets in the target of the last link found do not start links.
	skipFrom, skipTo := -1, -1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '[' && (i < skipFrom || i >= skipTo):
			end := closingBracket(s, i)
			if end < 0 || end+1 >= len(s) || s[end+1] != '(' {
				continue
			}
			target, at, next, ok := destination(s, end+2)
			if ok && target != "" {
				links = append(links, link{lineAt(at), target})
				skipFrom, skipTo = end+1, next
			}
		}
	}
	return links
}

// closingBracket is the index of the ] that closes the [ at s[open], or -1.
func closingBracket(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			depth++
		case ']':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// destination parses the destination and title of an inline link from s[i]
// (just after its opening parenthesis) to the closing parenthesis: the target,
// its offset and the offset after the link.
func destination(s string, i int) (target string, at, next int, ok bool) {
	i = skipSpace(s, i)
	at = i
	if i < len(s) && s[i] == '<' {
		end := strings.IndexAny(s[i+1:], "<>\n")
		if end < 0 || s[i+1+end] != '>' {
			return "", 0, 0, false
		}
		target, at, i = s[i+1:i+1+end], i+1, i+2+end
	} else {
		depth := 0
	scan:
		for ; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\':
				i++
			case c <= ' ':
				break scan
			case c == '(':
				depth++
			case c == ')':
				if depth == 0 {
					break scan
				}
				depth--
			}
		}
		target = s[at:min(i, len(s))]
	}
	j := skipSpace(s, i)
	if j > i && j < len(s) && strings.IndexByte(`"'(`, s[j]) >= 0 {
		closer := s[j]
		if closer == '(' {
			closer = ')'
		}
		for j++; j < len(s) && s[j] != closer; j++ {
			if s[j] == '\\' {
				j++
			}
		}
		j = skipSpace(s, j+1)
	}
	if j >= len(s) || s[j] != ')' {
		return "", 0, 0, false
	}
	return unescape(target), at, j + 1, true
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	return i
}

// unescape resolves the backslash escapes and entities of a link target.
func unescape(s string) string {
	return html.UnescapeString(escape.ReplaceAllString(s, "$1"))
}
