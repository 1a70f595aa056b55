package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The documentation's command lines are checked against the program, so
// that the README and docs/ (every topic file) cannot drift from it: every tambala
// command line of a shell block (```sh, ```console: the lines after "$ "),
// and every inline `tambala ...` of the prose, names a command that
// exists, with flags it has, valid values where the flag set checks them,
// and as many arguments as it takes (checkArgs). The lines that need no
// server and no network (version, migrate, ledger check, backup and
// restore of a bbolt or pebble store) are run, in order, in a folder of
// their own.

// moduleRoot is the module's folder, from this package's.
const moduleRoot = "../.."

// docFiles are the documents whose command lines are checked.
func docFiles(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*.md"))
	require.NoError(t, err)
	topics, err := filepath.Glob(filepath.Join(moduleRoot, "docs", "*", "*.md"))
	require.NoError(t, err)
	return append(append([]string{filepath.Join(moduleRoot, "README.md")}, docs...), topics...)
}

// docCommand is one simple command of a document: its words, where it is.
type docCommand struct {
	where string // file:line
	words []string
	// inline says it comes from a `code span` of the prose, not a block.
	inline bool
}

func (d docCommand) String() string { return d.where + ": " + strings.Join(d.words, " ") }

// fence opens or closes a fenced block: its info string.
var fence = regexp.MustCompile("^\\s*```+\\s*([A-Za-z]*)")

// shellInfo are the info strings of shell blocks; console blocks mark
// their commands with "$ ".
var shellInfo = []string{"sh", "bash", "shell", "console"}

// docCommands reads the simple commands of file's shell blocks and of the
// inline code spans of its prose.
func docCommands(t *testing.T, file string) []docCommand {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	name := strings.TrimPrefix(file, moduleRoot+"/")
	lines := strings.Split(string(b), "\n")
	var out []docCommand
	var prose strings.Builder // the prose, a fenced line blank (spans do not cross it)
	info, inBlock := "", false
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fence.FindStringSubmatch(line); m != nil {
			if inBlock {
				inBlock = false
			} else {
				inBlock, info = true, m[1]
			}
			prose.WriteString("\n")
			continue
		}
		if !inBlock {
			prose.WriteString(line + "\n")
			continue
		}
		prose.WriteString("\n")
		if !slices.Contains(shellInfo, info) {
			continue
		}
		at := i + 1
		if info == "console" {
			if !strings.HasPrefix(line, "$ ") {
				continue // output
			}
			line = strings.TrimPrefix(line, "$ ")
		}
		// A line ending in a backslash goes on.
		for strings.HasSuffix(line, "\\") && i+1 < len(lines) {
			i++
			line = strings.TrimSuffix(line, "\\") + " " + lines[i]
			prose.WriteString("\n")
		}
		for _, words := range shellCommands(line) {
			out = append(out, docCommand{where: fmt.Sprintf("%s:%d", name, at), words: words})
		}
	}
	// Inline spans, which may wrap: `tambala fund $ORG 5000.00 MWK\n-ref wire-1`.
	text := prose.String()
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatchIndex(text, -1) {
		span := strings.ReplaceAll(text[m[2]:m[3]], "\n", " ")
		if !strings.HasPrefix(span, "tambala ") {
			continue
		}
		at := strings.Count(text[:m[0]], "\n") + 1
		for _, words := range shellCommands(span) {
			out = append(out, docCommand{where: fmt.Sprintf("%s:%d", name, at), words: words, inline: true})
		}
	}
	return out
}

// shellCommands splits a shell line into its simple commands' words, as
// far as the documents use the shell: quotes, backslashes, comments,
// pipes and lists (| || && ; &), redirections (dropped with their
// target), and command substitutions, whose commands are listed too and
// whose place in a word becomes the date for $(date +%F) and X otherwise.
// Variables ($ORG) stay as they are written.
func shellCommands(s string) [][]string {
	var cmds [][]string
	var words []string
	var cur strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if inWord && !redirect {
			words = append(words, cur.String())
		}
		if inWord {
			redirect = false
		}
		cur.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(words) > 0 {
			cmds = append(cmds, words)
		}
		words = nil
	}
	// substitution reads $( ... ) at s[i:] and returns where it ends.
	substitution := func(i int) int {
		depth, j := 0, i+1
		for ; j < len(s); j++ {
			if s[j] == '(' {
				depth++
			} else if s[j] == ')' {
				if depth--; depth == 0 {
					break
				}
			}
		}
		inner := s[i+2 : min(j, len(s))]
		cmds = append(cmds, shellCommands(inner)...)
		if strings.TrimSpace(inner) == "date +%F" {
			cur.WriteString(time.Now().Format("2006-01-02"))
		} else {
			cur.WriteString("X")
		}
		inWord = true
		return j + 1
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			inWord = true
			i += 2
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			inWord = true
			i++
			for i < len(s) && s[i] != '"' {
				switch {
				case s[i] == '\\' && i+1 < len(s):
					cur.WriteByte(s[i+1])
					i += 2
				case strings.HasPrefix(s[i:], "$("):
					i = substitution(i)
				default:
					cur.WriteByte(s[i])
					i++
				}
			}
			i++
		case strings.HasPrefix(s[i:], "$("):
			i = substitution(i)
		case c == '#' && !inWord:
			i = len(s)
		case c == ' ' || c == '\t':
			endWord()
			i++
		case c == '|' || c == ';' || c == '&':
			endCommand()
			i++
		case c == '>' || c == '<':
			if w := cur.String(); inWord && (w == "1" || w == "2") {
				cur.Reset() // 2>
				inWord = false
			}
			endWord()
			i++
			if i < len(s) && s[i] == '&' { // >&2
				i += 2
				continue
			}
			redirect = true
		default:
			cur.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCommand()
	return cmds
}

// assignment is a word that sets a variable for the command after it.
var assignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// tambalaArgs returns the arguments of a tambala command line (after
// "tambala", a built binary names, or "go run ./cmd/tambala"), or false
// when words run another command. names are the binaries built from
// ./cmd/tambala so far (go build -o /tmp/tam ./cmd/tambala).
func tambalaArgs(words []string, names map[string]bool) ([]string, bool) {
	for len(words) > 0 && assignment.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/tambala":
		return words[3:], true
	case len(words) >= 1 && names[filepath.Base(words[0])]:
		return words[1:], true
	}
	return nil, false
}

// builtName notes the binary a go build -o OUT ./cmd/tambala makes.
func builtName(words []string, names map[string]bool) {
	if len(words) >= 5 && words[0] == "go" && words[1] == "build" && words[2] == "-o" && words[4] == "./cmd/tambala" {
		names[filepath.Base(words[3])] = true
	}
}

// placeholder is a word that stands for one the reader chooses (COMMAND).
var placeholder = regexp.MustCompile(`^[A-Z][A-Z_]*$`)

// notCommands are inline spans that start with "tambala" and are no
// command line: a log line's message.
var notCommands = []string{"tambala server started"}

// variants returns the command lines args stands for: a shell loop's
// variable ($move of "for move in a b") once with each of its values, an
// optional group ([-store pebble]) left out and, unless it holds a
// placeholder (N), put in.
func variants(args []string, loops map[string][]string) [][]string {
	for i, a := range args {
		if vals, ok := loops[strings.TrimPrefix(a, "$")]; ok && strings.HasPrefix(a, "$") {
			var out [][]string
			for _, v := range vals {
				out = append(out, variants(slices.Concat(args[:i], []string{v}, args[i+1:]), loops)...)
			}
			return out
		}
		if strings.HasPrefix(a, "[") {
			end := slices.IndexFunc(args[i:], func(w string) bool { return strings.HasSuffix(w, "]") })
			if end < 0 {
				break
			}
			group := slices.Clone(args[i : i+end+1])
			group[0] = strings.TrimPrefix(group[0], "[")
			group[len(group)-1] = strings.TrimSuffix(group[len(group)-1], "]")
			out := variants(slices.Concat(args[:i], args[i+end+1:]), loops)
			if !slices.ContainsFunc(group, placeholder.MatchString) {
				out = append(out, variants(slices.Concat(args[:i], group, args[i+end+1:]), loops)...)
			}
			return out
		}
	}
	return [][]string{args}
}

// TestDocsCommandLines: every tambala command line of the README and
// docs/*.md reads as the program reads it.
func TestDocsCommandLines(t *testing.T) {
	checked := 0
	for _, file := range docFiles(t) {
		names := map[string]bool{"tambala": true}
		loops := map[string][]string{}
		for _, d := range docCommands(t, file) {
			builtName(d.words, names)
			words := d.words
			if len(words) >= 3 && words[0] == "for" && words[2] == "in" {
				loops[words[1]] = words[3:]
				continue
			}
			if words[0] == "do" {
				words = words[1:]
			}
			args, ok := tambalaArgs(words, names)
			if !ok {
				continue
			}
			if d.inline {
				if len(args) > 0 && placeholder.MatchString(args[0]) {
					continue // `tambala COMMAND -h`
				}
				if slices.Contains(notCommands, strings.Join(words, " ")) || slices.ContainsFunc(args, func(w string) bool { return strings.HasSuffix(w, ":") }) {
					continue // a message: `tambala org show: No such resource.`
				}
				if cmd, n := lookup(commands(), args); cmd != nil && n == len(args) {
					checked++ // the command named in the prose: `tambala backup`
					continue
				}
			}
			for _, v := range variants(args, loops) {
				checked++
				err := checkArgs(context.Background(), v)
				if errors.Is(err, fs.ErrNotExist) {
					continue // a file the reader makes: institutions.json
				}
				if err != nil {
					t.Errorf("%s\n\t%v", d, err)
				}
			}
		}
	}
	assert.Greater(t, checked, 100, "the documents' tambala command lines were found")
}

// TestCheckArgsRefuses keeps checkArgs honest: it refuses what the
// program refuses, and runs nothing.
func TestCheckArgsRefuses(t *testing.T) {
	ctx := context.Background()
	for _, good := range [][]string{
		{"fund", "-ref", "wire-1", "$ORG", "5000.00", "MWK"},
		{"fund", "$ORG", "5000.00", "MWK", "-ref", "wire-1"},
		{"serve", "-env", "production", "-provider", "manual"},
		{"backup", "-data", "data", "tambala.bolt"},
		{"order", "move", "$ORDER", "processing"},
		{"version"},
		{"-h"},
		{"org", "list", "-h"},
	} {
		assert.NoError(t, checkArgs(ctx, good), "%q", good)
	}
	for _, bad := range [][]string{
		{"frobnicate"},
		{"org", "frobnicate"},
		{"fund", "-reference", "wire-1", "$ORG", "5000.00", "MWK"},
		{"fund", "$ORG", "5000.00", "MWK"}, // -ref is required
		{"fund", "-ref", "w", "$ORG", "5000.00"},
		{"serve", "-env", "staging"},
		{"serve", "-provider", "bank"},
		{"serve", "-verbose"},
		{"backup", "-data", "data"},
		{"version", "-short"},
		{"payout", "resolve", "$PAYOUT", "-outcome", "succeeded", "-fees", "250.00"},
	} {
		assert.Error(t, checkArgs(ctx, bad), "%q", bad)
	}
}

// TestShellCommands: the documents' shell, read as the shell reads it.
func TestShellCommands(t *testing.T) {
	today := time.Now().Format("2006-01-02")
	for _, tc := range []struct {
		line string
		want [][]string
	}{
		{`tambala org list`, [][]string{{"tambala", "org", "list"}}},
		{`tambala fund $ORG 5000.00 MWK -ref wire-1   # once per ref`, [][]string{{"tambala", "fund", "$ORG", "5000.00", "MWK", "-ref", "wire-1"}}},
		{`tambala payout resolve $P -reason "Paid through the portal."`, [][]string{{"tambala", "payout", "resolve", "$P", "-reason", "Paid through the portal."}}},
		{`tambala order move $O coins-sent >/dev/null && tambala order move $O complete 2>&1`,
			[][]string{{"tambala", "order", "move", "$O", "coins-sent"}, {"tambala", "order", "move", "$O", "complete"}}},
		{`tambala backup -data data tambala-$(date +%F).bolt`, [][]string{{"date", "+%F"}, {"tambala", "backup", "-data", "data", "tambala-" + today + ".bolt"}}},
		{`export T=$(cat data/admin-token); go run ./cmd/tambala serve -quiet &`,
			[][]string{{"cat", "data/admin-token"}, {"export", "T=X"}, {"go", "run", "./cmd/tambala", "serve", "-quiet"}}},
		{`curl -H "Authorization: Bearer $(cat t)" x | head -c 300`, [][]string{{"cat", "t"}, {"curl", "-H", "Authorization: Bearer X", "x"}, {"head", "-c", "300"}}},
		{`tambala migrate -store 'postgres://u@h/db?a=1&b=2'`, [][]string{{"tambala", "migrate", "-store", "postgres://u@h/db?a=1&b=2"}}},
	} {
		assert.Equal(t, tc.want, shellCommands(tc.line), tc.line)
	}
}

// offline reports whether a tambala command line runs with no server and
// no network: version, and migrate, ledger check, backup and restore on a
// bbolt or pebble store.
func offline(args []string) bool {
	cmd, _ := lookup(commands(), args)
	if cmd == nil || slices.ContainsFunc(args, func(a string) bool {
		return a == "-from" || strings.Contains(a, "postgres://") || strings.Contains(a, "$")
	}) {
		return false
	}
	return slices.Contains([]string{"version", "migrate", "ledger check", "backup", "restore"}, cmd.name)
}

// TestDocsOfflineCommandsRun: the documents' tambala command lines that
// need no server run, in each document's order, in a folder of its own
// whose data folder holds an empty bbolt and pebble store (as a stopped
// server leaves them). A restore of a copy no line of the document made
// (the README's copy of an earlier day) is checked, not run.
func TestDocsOfflineCommandsRun(t *testing.T) {
	ran := 0
	for _, file := range docFiles(t) {
		var lines [][]string
		names := map[string]bool{"tambala": true}
		for _, d := range docCommands(t, file) {
			builtName(d.words, names)
			if args, ok := tambalaArgs(d.words, names); ok && !d.inline && offline(args) {
				lines = append(lines, args)
			}
		}
		if len(lines) == 0 {
			continue
		}
		t.Run(filepath.Base(file), func(t *testing.T) {
			dir := t.TempDir()
			abs := func(p string) string {
				if filepath.IsAbs(p) {
					return p
				}
				return filepath.Join(dir, p)
			}
			for _, setup := range [][]string{{"migrate", "-data", abs("data")}, {"migrate", "-data", abs("data"), "-store", "pebble"}} {
				code, _, errOut := tambala(t, nil, setup...)
				require.Equal(t, 0, code, errOut)
			}
			for _, args := range lines {
				// The paths of the line, in the document's folder.
				run := slices.Clone(args)
				for i, a := range run {
					if i > 0 && run[i-1] == "-data" || strings.HasSuffix(a, ".bolt") || strings.HasSuffix(a, ".tar") || strings.HasSuffix(a, ".backup") {
						run[i] = abs(a)
					}
				}
				if run[0] == "restore" {
					if _, err := os.Stat(run[len(run)-1]); err != nil {
						t.Logf("%q: its copy is not made here; checked only", args)
						continue
					}
				}
				code, out, errOut := tambala(t, nil, run...)
				require.Equal(t, 0, code, "%q\nstdout %s\nstderr %s", args, out, errOut)
				ran++
			}
		})
	}
	assert.GreaterOrEqual(t, ran, 6, "the backup and restore lines ran")
}

// TestReadmeExamplesCommand: the README's way to see the engine's runnable
// examples shows every one of them with its output. (go doc never prints
// examples: they live in _test.go files.)
func TestReadmeExamplesCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the examples")
	}
	readme, err := os.ReadFile(filepath.Join(moduleRoot, "README.md"))
	require.NoError(t, err)
	i := strings.Index(string(readme), "runnable example")
	require.GreaterOrEqual(t, i, 0, "the README tells of the runnable examples")
	para := string(readme)[i:]
	para = para[:strings.Index(para, "\n\n")]
	var examples []string
	files, err := filepath.Glob(filepath.Join(moduleRoot, "example*_test.go"))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range regexp.MustCompile(`(?m)^func (Example\w*)\(\)`).FindAllStringSubmatch(string(b), -1) {
			examples = append(examples, m[1])
		}
	}
	require.NotEmpty(t, examples)
	commands := 0
	for _, m := range regexp.MustCompile("`(go [^`]+)`").FindAllStringSubmatch(strings.ReplaceAll(para, "\n", " "), -1) {
		commands++
		words := strings.Fields(m[1])
		cmd := exec.Command(words[0], words[1:]...)
		cmd.Dir = moduleRoot
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s: %s", m[1], out)
		for _, ex := range examples {
			assert.True(t, strings.Contains(string(out), ex), "%s shows no %s", m[1], ex)
		}
		if words[1] == "test" {
			for _, ex := range examples {
				assert.True(t, strings.Contains(string(out), "--- PASS: "+ex+" "), "%s does not run %s", m[1], ex)
			}
		}
	}
	assert.Positive(t, commands, "the README names a command that shows the examples:\n%s", para)
}
