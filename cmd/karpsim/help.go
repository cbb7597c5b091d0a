package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	cobra.AddTemplateFunc("flagTable", flagTable)
}

// usageTemplate lays out what every help ends with: the usage lines, the
// examples, the commands and the flags.
const usageTemplate = `Usage:{{if .Runnable}}
  {{.UseLine}}{{end}}{{if .HasAvailableSubCommands}}
  {{.CommandPath}} COMMAND [flags]{{end}}{{if .HasExample}}

Examples:
{{.Example}}{{end}}{{if .HasAvailableSubCommands}}

Commands:{{range .Commands}}{{if .IsAvailableCommand}}
  {{rpad .Name .NamePadding}}   {{.Short}}{{end}}{{end}}{{end}}{{if .HasAvailableLocalFlags}}

Flags:
{{flagTable .LocalFlags}}{{end}}{{if .HasAvailableSubCommands}}

Run '{{.CommandPath}} help COMMAND' for a command's flags and examples.{{end}}
`

// helpWidth is the width flag descriptions are wrapped to.
const helpWidth = 110

// flagTable lists flags, sorted by name, one per entry: "-f, --filename
// PATH", then its description wrapped beside it, and its default when it
// has one. A boolean flag shows no value, as it takes none.
func flagTable(flags *pflag.FlagSet) string {
	var names, descriptions []string
	flags.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		name := "    --" + f.Name
		if f.Shorthand != "" {
			name = "-" + f.Shorthand + ", --" + f.Name
		}
		value, usage := pflag.UnquoteUsage(f)
		if value != "" {
			name += " " + value
		}
		if hasDefault(f) {
			usage += fmt.Sprintf(" (default %q)", f.DefValue)
		}
		names = append(names, name)
		descriptions = append(descriptions, usage)
	})
	width := 0
	for _, n := range names {
		width = max(width, len(n))
	}
	var b strings.Builder
	for i, n := range names {
		indent := 2 + width + 3
		lines := wrap(descriptions[i], max(helpWidth-indent, 40))
		fmt.Fprintf(&b, "  %-*s   %s\n", width, n, lines[0])
		for _, line := range lines[1:] {
			fmt.Fprintf(&b, "%*s%s\n", indent, "", line)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// hasDefault tells whether a flag's default is worth showing: not a zero
// value, and not a boolean, whose default is always false.
func hasDefault(f *pflag.Flag) bool {
	switch f.DefValue {
	case "", "0", "false", "[]":
		return false
	}
	return true
}

// wrap cuts text into lines of at most width bytes at spaces; a word
// longer than width gets a line of its own.
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		switch {
		case line == "":
			line = word
		case len(line)+1+len(word) <= width:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	return append(lines, line)
}

// newHelpCommand is cobra's help command, except that an unknown topic is
// a usage error (exit 2) with a suggestion, as an unknown command is.
func newHelpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [COMMAND]",
		Short: "print the help of a command, as COMMAND --help does",
		Example: `  karpsim help plan
  karpsim help completion`,
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []cobra.Completion
			for _, c := range cmd.Root().Commands() {
				if c.IsAvailableCommand() {
					names = append(names, cobra.CompletionWithDesc(c.Name(), c.Short))
				}
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			topic, _, err := cmd.Root().Find(args)
			if err != nil {
				return fmt.Errorf("%w: %w", errUsage, err)
			}
			// As cobra's own help command does: the topic's flags are
			// completed only when the topic itself runs.
			topic.InitDefaultHelpFlag()
			return topic.Help()
		},
	}
}
