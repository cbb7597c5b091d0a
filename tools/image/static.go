package main

import (
	"debug/elf"
	"fmt"
)

// checkStatic refuses a binary that needs a dynamic loader or shared
// libraries: the image has none.
func checkStatic(path string) error {
	f, err := elf.Open(path)
	if err != nil {
		return fmt.Errorf("karpsim binary %s: %w", path, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("karpsim binary %s: dynamically linked (it names an interpreter): build it with CGO_ENABLED=0", path)
		}
	}
	libs, err := f.ImportedLibraries()
	if err != nil {
		return fmt.Errorf("karpsim binary %s: %w", path, err)
	}
	if len(libs) > 0 {
		return fmt.Errorf("karpsim binary %s: needs shared libraries %v: build it with CGO_ENABLED=0", path, libs)
	}
	return nil
}
