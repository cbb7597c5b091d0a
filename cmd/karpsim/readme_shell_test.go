package main

import (
	"regexp"
	"slices"
	"strings"
)

// The shell of the examples that TestMarkdownExamplesRun runs: Markdown's
// fenced shell blocks cut into command lines, and a command line into
// pipelines of commands with their redirections, as far as the examples
// need (no expansions, no control flow beyond skipping its keywords).

// shellBlock is a fenced shell block of a Markdown file.
type shellBlock struct {
	file         string
	line         int      // the line of the opening fence, from 1
	placeholders []string // the names its placeholder lines give
	commands     []shellLine
}

// shellLine is a command line of a block, its continuation lines joined.
type shellLine struct {
	line int
	text string
}

// slow tells whether a command line runs one of slowExamples.
func slow(line string) bool {
	for _, s := range slowExamples {
		if strings.Contains(line, s) && !strings.Contains(line, "--emit-job") {
			return true
		}
	}
	return false
}

// shellBlocks are the fenced sh, bash and shell blocks of a Markdown text.
func shellBlocks(file, markdown string) []shellBlock {
	var blocks []shellBlock
	var current *shellBlock
	pending, pendingLine := "", 0
	for i, line := range strings.Split(markdown, "\n") {
		n := i + 1
		if current == nil {
			if info, ok := strings.CutPrefix(line, "```"); ok && slices.Contains([]string{"sh", "bash", "shell"}, strings.Fields(info + " x")[0]) {
				current = &shellBlock{file: file, line: n}
			}
			continue
		}
		if strings.HasPrefix(line, "```") {
			blocks = append(blocks, *current)
			current = nil
			continue
		}
		if pending == "" {
			pendingLine = n
		}
		if body, ok := strings.CutSuffix(line, "\\"); ok {
			pending += body
			continue
		}
		text := strings.TrimSpace(pending + line)
		pending = ""
		if name, ok := strings.CutPrefix(text, placeholderMark); ok && len(current.commands) == 0 {
			if fields := strings.Fields(name); len(fields) > 0 {
				current.placeholders = append(current.placeholders, fields[0])
			}
			continue
		}
		if text != "" && !strings.HasPrefix(text, "#") {
			current.commands = append(current.commands, shellLine{line: pendingLine, text: text})
		}
	}
	return blocks
}

// stage is one command of a pipeline: its words, and the files its
// standard input and output are redirected from and to.
type stage struct {
	args          []string
	stdin, stdout string
}

// assignment is an environment variable set for one command.
var assignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// shellOperators are the operators the examples use, longest first.
var shellOperators = []string{"&&", "||", "<(", "2>", ">>", "|", ";", ">", "<", ")"}

// tokens cuts a command line into words and operators as a POSIX shell
// would, as far as the examples need: quotes are removed, $(...) stays in
// its word, and a # starting a word starts a comment.
func tokens(line string) []string {
	var out []string
	var word strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			out = append(out, word.String())
		}
		word.Reset()
		inWord = false
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == '\'' || c == '"':
			end := strings.IndexByte(line[i+1:], c)
			if end < 0 {
				end = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+end])
			inWord = true
			i += end + 1
		case c == '$' && i+1 < len(line) && line[i+1] == '(':
			depth, j := 0, i+1
			for ; j < len(line); j++ {
				if line[j] == '(' {
					depth++
				} else if line[j] == ')' {
					if depth--; depth == 0 {
						break
					}
				}
			}
			word.WriteString(line[i:min(j+1, len(line))])
			inWord = true
			i = j
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			flush()
			return out
		default:
			op := ""
			for _, o := range shellOperators {
				if strings.HasPrefix(line[i:], o) && (o != "2>" || !inWord) {
					op = o
					break
				}
			}
			if op == "" {
				word.WriteByte(c)
				inWord = true
				continue
			}
			flush()
			out = append(out, op)
			i += len(op) - 1
		}
	}
	flush()
	return out
}

// pipelines cuts a command line into the pipelines it runs one after the
// other; a process substitution <(...) is a pipeline of its own, run first.
func pipelines(line string) [][]stage {
	var all [][]stage
	var current []stage
	var st stage
	var nested [][]string
	toks := tokens(line)
	endStage := func() {
		if len(st.args) > 0 || st.stdin != "" || st.stdout != "" {
			current = append(current, st)
		}
		st = stage{}
	}
	endPipeline := func() {
		endStage()
		if len(current) > 0 {
			all = append(all, current)
		}
		current = nil
	}
	for i := 0; i < len(toks); i++ {
		switch tok := toks[i]; tok {
		case "&&", "||", ";":
			endPipeline()
		case "|":
			endStage()
		case ">", ">>", "<", "2>":
			if i+1 < len(toks) {
				i++
				switch tok {
				case "<":
					st.stdin = toks[i]
				case ">", ">>":
					st.stdout = toks[i]
				}
			}
		case "<(":
			j := i + 1
			for j < len(toks) && toks[j] != ")" {
				j++
			}
			nested = append(nested, toks[i+1:j])
			st.args = append(st.args, "/dev/fd/63")
			i = j
		case ")":
		default:
			if len(st.args) == 0 && (tok == "do" || tok == "then" || assignment.MatchString(tok)) {
				continue
			}
			st.args = append(st.args, tok)
		}
	}
	endPipeline()
	var subs [][]stage
	for _, n := range nested {
		subs = append(subs, pipelines(strings.Join(n, " "))...)
	}
	return append(subs, all...)
}

// karpsimArgs are the arguments of a karpsim command: `karpsim ARGS` or
// `go run ./cmd/karpsim ARGS`.
func karpsimArgs(args []string) ([]string, bool) {
	switch {
	case len(args) > 0 && args[0] == "karpsim":
		return args[1:], true
	case len(args) > 2 && args[0] == "go" && args[1] == "run" && strings.TrimSuffix(args[2], "/") == "./cmd/karpsim":
		return args[3:], true
	}
	return nil, false
}
