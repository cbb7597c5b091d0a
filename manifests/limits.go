package manifests

import (
	"fmt"
	"strconv"
)

// The limits of one Load, Decode or LoadReader. They refuse what is absurd,
// not what is large and real: `kubectl get pods -A -o json` prints about
// 9.5 KB a pod, so a 1 GiB dump holds some 100,000 pods, and karpsim reads
// 20,000 of them in about two seconds. What passes a limit is refused with
// ErrTooLarge, naming the limit.
const (
	// MaxStreamBytes is the most karpsim reads from one file or stream:
	// 1 GiB.
	MaxStreamBytes = 1 << 30
	// MaxObjects is the most objects (List items included) karpsim reads in
	// one Load: 200,000.
	MaxObjects = 200_000
)

// limits are the bounds a loader applies; the zero value means the
// defaults above, and tests set smaller ones.
type limits struct {
	bytes   int64
	objects int
}

func (l limits) maxBytes() int64 {
	if l.bytes > 0 {
		return l.bytes
	}
	return MaxStreamBytes
}

func (l limits) maxObjects() int {
	if l.objects > 0 {
		return l.objects
	}
	return MaxObjects
}

// admit counts n more objects, and reports, once, when the limit is passed.
func (l *loader) admit(src Source, n int) bool {
	l.objects += n
	if l.objects <= l.limits.maxObjects() {
		return true
	}
	if !l.overObjects {
		l.overObjects = true
		l.fail(src, "", "", ErrTooLarge, fmt.Sprintf("%s: more than %d objects: karpsim reads at most %d in one go (a dump of a real cluster has far fewer)",
			src.where(), l.limits.maxObjects(), l.limits.maxObjects()))
	}
	return false
}

// formatBytes writes a size the way the limits are stated: "1 GiB".
func formatBytes(n int64) string {
	for _, unit := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= unit.size && n%unit.size == 0 {
			return strconv.FormatInt(n/unit.size, 10) + " " + unit.name
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
