package main

import (
	"fmt"
	"slices"

	"github.com/spf13/cobra"
)

// shells are the shells `karpsim completion` writes scripts for.
var shells = []string{"bash", "zsh", "fish", "powershell"}

func newCompletionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "print a shell script that completes karpsim's commands, flags, -o values and manifest files",
		Long: `Completion prints a script that makes the shell complete karpsim's commands, flags, the values of
-o and --min-values-policy, and file names for -f (.yaml, .yml and .json files, and folders).

  bash        needs the bash-completion package; load it in ~/.bashrc with
              source <(karpsim completion bash)
  zsh         needs compinit; write it to a folder of $fpath, e.g.
              karpsim completion zsh > "${fpath[1]}/_karpsim"
  fish        karpsim completion fish > ~/.config/fish/completions/karpsim.fish
  powershell  karpsim completion powershell | Out-String | Invoke-Expression
              (add the line to $PROFILE to keep it)

Start a new shell after installing a script.`,
		Example: `  # Completion in this bash session
  source <(karpsim completion bash)

  # For every zsh session
  karpsim completion zsh > "${fpath[1]}/_karpsim"`,
		Args:                  completionArgs,
		ValidArgs:             shells,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, out := cmd.Root(), cmd.OutOrStdout()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(out, true)
			case "zsh":
				return root.GenZshCompletion(out)
			case "fish":
				return root.GenFishCompletion(out, true)
			default:
				return root.GenPowerShellCompletionWithDesc(out)
			}
		},
	}
}

// completionArgs accepts exactly one shell.
func completionArgs(_ *cobra.Command, args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("%w: want one shell, %s; got %d arguments", errUsage, orList(shells), len(args))
	}
	if !slices.Contains(shells, args[0]) {
		return fmt.Errorf("%w: unknown shell %q: want %s", errUsage, args[0], orList(shells))
	}
	return nil
}
