//go:build !unix

package clusterdump

import "time"

// CPUTime returns 0 where the process's CPU time is not known.
func CPUTime() time.Duration { return 0 }
