//go:build !race

package main

// raceDetector says whether the race detector is on: it makes the commands
// several times slower, so deadlines that catch a hang are scaled by it.
const raceDetector = false
