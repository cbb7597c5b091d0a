//go:build race

package controller

// raceEnabled: the race detector slows every goroutine several times, so
// load tests check what is lost, not how fast.
const raceEnabled = true
