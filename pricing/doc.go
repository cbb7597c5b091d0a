// Package pricing holds the prices of instance-type offerings and records
// which offerings are temporarily unavailable after an insufficient-capacity
// error. It is pure: nothing here reads a clock, the network or a file; time
// is always an argument and the only input functions parse an io.Reader the
// caller opened. The same inputs give the same prices on every machine.
//
// It owns where prices come from and which offerings ran out of capacity. It
// imports no other karpsim package.
//
// The import rules between packages are checked by internal/layering.
package pricing
