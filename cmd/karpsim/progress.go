package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// isTerminal tells whether a reader or writer is a terminal (a character
// device): where a progress line redrawn in place reads well (pipes and
// files get none), and where standard input waits for a person typing.
func isTerminal(stream any) bool {
	f, ok := stream.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// progressLine redraws one line on w, at most every interval of wall
// time, with how much virtual time has been simulated; the end of the run
// erases it, so that the output that follows starts on a clean line.
type progressLine struct {
	w        io.Writer
	now      func() time.Time
	interval time.Duration
	last     time.Time
	drawn    bool
}

func newProgressLine(w io.Writer, now func() time.Time) *progressLine {
	return &progressLine{w: w, now: now, interval: 100 * time.Millisecond}
}

// report is a simulator.Config.Progress.
func (p *progressLine) report(done, total time.Duration) {
	if done >= total {
		if p.drawn {
			fmt.Fprint(p.w, "\r\033[K")
			p.drawn = false
		}
		return
	}
	if t := p.now(); !p.drawn || t.Sub(p.last) >= p.interval {
		p.last = t
		p.drawn = true
		fmt.Fprintf(p.w, "\r\033[Ksimulating: %v of %v (%d%%)", done.Truncate(time.Second), total, int(100*done/total))
	}
}
