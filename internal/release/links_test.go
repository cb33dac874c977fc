// Copyright (c) gpuplan contributors
// SPDX-License-Identifier: MPL-2.0

package release_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The documentation link check: every relative link of the Markdown the
// repository shows (README and the other top-level documents, docs/, the
// tfplugindocs templates, READMEs and docs under examples/ and internal/)
// resolves to a file or directory that exists, and every #anchor to a
// heading of its target as GitHub renders it. Offline: links with a scheme
// (https:, mailto:) are not followed.

var (
	// inlineLink matches [text](target) and ![alt](target), up to the
	// first space (an optional "title" follows it).
	inlineLink = regexp.MustCompile(`!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	// refLink matches a reference definition: [label]: target.
	refLink = regexp.MustCompile(`(?m)^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s|$)`)
	// htmlLink matches href="target" and src="target".
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
	// codeSpan and fence remove code, where brackets are not links.
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	// templateAction removes Go template actions ({{ tffile "..." }}).
	templateAction = regexp.MustCompile(`\{\{[^}]*\}\}`)
	scheme         = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// docFiles lists the Markdown files and templates to check, relative to
// the repository root.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			switch d.Name() {
			case ".git", ".terraform", ".demo", "dist", "bin", "node_modules", "build":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".md.tmpl") {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// stripCode removes fenced code blocks, code spans and template actions.
func stripCode(s string) string {
	var b strings.Builder
	fenced := false
	for _, line := range strings.SplitAfter(s, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			b.WriteString("\n")
			continue
		}
		if fenced {
			b.WriteString("\n")
			continue
		}
		b.WriteString(codeSpan.ReplaceAllString(line, ""))
	}
	return templateAction.ReplaceAllString(b.String(), "")
}

// links returns the link targets of a Markdown text.
func links(s string) []string {
	s = stripCode(s)
	var out []string
	for _, re := range []*regexp.Regexp{inlineLink, refLink, htmlLink} {
		for _, m := range re.FindAllStringSubmatch(s, -1) {
			out = append(out, m[1])
		}
	}
	return out
}

var (
	headingLine  = regexp.MustCompile(`^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$`)
	htmlAnchor   = regexp.MustCompile(`<a\s+(?:name|id)="([^"]+)"`)
	anchorStrip  = regexp.MustCompile(`[^\p{L}\p{N}\- _]`)
	markdownLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
)

// anchors returns the anchors GitHub gives a Markdown text's headings:
// lower case, punctuation removed, spaces to dashes, "-1", "-2" on
// repeats; plus explicit <a name> / <a id> anchors.
func anchors(s string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		for _, m := range htmlAnchor.FindAllStringSubmatch(line, -1) {
			out[m[1]] = true
		}
		m := headingLine.FindStringSubmatch(line)
		if fenced || m == nil {
			continue
		}
		h := markdownLink.ReplaceAllString(m[1], "$1")
		h = strings.ReplaceAll(h, "`", "")
		a := strings.ReplaceAll(anchorStrip.ReplaceAllString(strings.ToLower(h), ""), " ", "-")
		if n := seen[a]; n > 0 {
			out[a+"-"+itoa(n)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// renderedAt is where a file's links resolve from: a template
// (templates/X.md.tmpl) is rendered to docs/X.md.
func renderedAt(rel string) string {
	if strings.HasPrefix(rel, "templates"+string(filepath.Separator)) && strings.HasSuffix(rel, ".md.tmpl") {
		return filepath.Join("docs", strings.TrimSuffix(strings.TrimPrefix(rel, "templates"+string(filepath.Separator)), ".tmpl"))
	}
	return rel
}

// checkLink returns what is wrong with one link target of file rel ("" if
// nothing).
func checkLink(root, rel, target string, own string) string {
	if scheme.MatchString(target) || strings.HasPrefix(target, "//") {
		return ""
	}
	pathPart, anchor, _ := strings.Cut(target, "#")
	pathPart, _, _ = strings.Cut(pathPart, "?")
	text := own
	if pathPart != "" {
		p := filepath.Join(root, filepath.Dir(renderedAt(rel)), filepath.FromSlash(pathPart))
		if strings.HasPrefix(pathPart, "/") {
			p = filepath.Join(root, filepath.FromSlash(pathPart))
		}
		info, err := os.Stat(p)
		if err != nil {
			return "no such file or directory"
		}
		if anchor == "" || info.IsDir() {
			return ""
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err.Error()
		}
		text = string(b)
		if !strings.HasSuffix(p, ".md") {
			return "" // an anchor into a non-Markdown file (a line) is GitHub's
		}
	}
	if anchor != "" && !anchors(text)[anchor] {
		return "no heading with anchor #" + anchor
	}
	return ""
}

// TestDocLinks: every relative link and anchor in the documentation
// resolves.
func TestDocLinks(t *testing.T) {
	root := "../.."
	files := docFiles(t, root)
	if len(files) < 20 {
		t.Fatalf("found only %d Markdown files under %s", len(files), root)
	}
	checked := 0
	for _, rel := range files {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		for _, target := range links(string(b)) {
			checked++
			if problem := checkLink(root, rel, target, string(b)); problem != "" {
				t.Errorf("%s: link %q: %s", rel, target, problem)
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d links checked: the link patterns are wrong", checked)
	}
}

// TestDocLinkChecker: the checker finds what it must (a missing file, a
// missing anchor) and accepts what GitHub resolves.
func TestDocLinkChecker(t *testing.T) {
	root := t.TempDir()
	writeText(t, filepath.Join(root, "README.md"), "# Title\n\n## Use it: from your own configuration\n\n## Use it: from your own configuration\n")
	writeText(t, filepath.Join(root, "docs", "guides", "a.md"), "# A guide\n")
	for _, tc := range []struct{ file, target, want string }{
		{"README.md", "docs/guides/a.md", ""},
		{"README.md", "docs/guides/a.md#a-guide", ""},
		{"README.md", "#use-it-from-your-own-configuration", ""},
		{"README.md", "#use-it-from-your-own-configuration-1", ""},
		{"README.md", "https://example.com/x", ""},
		{"README.md", "docs/guides/b.md", "no such file or directory"},
		{"README.md", "docs/guides/a.md#nothing", "no heading with anchor #nothing"},
		{filepath.Join("templates", "guides", "x.md.tmpl"), "a.md", ""},
		{filepath.Join("templates", "guides", "x.md.tmpl"), "../../docs/nothing.md", "no such file or directory"},
	} {
		own := "# Title\n\n## Use it: from your own configuration\n\n## Use it: from your own configuration\n"
		if got := checkLink(root, tc.file, tc.target, own); got != tc.want {
			t.Errorf("%s -> %s: %q, want %q", tc.file, tc.target, got, tc.want)
		}
	}
	got := links("[a](x.md) `[b](y.md)` ![c](img.png \"t\")\n```\n[d](z.md)\n```\n[e]: ref.md\n<a href=\"h.md\">h</a> {{ tffile \"q.tf\" }}")
	if want := []string{"x.md", "img.png", "ref.md", "h.md"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("links = %q, want %q", got, want)
	}
}
