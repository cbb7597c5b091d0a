// Package pricing holds the prices of instance-type offerings and records
// which offerings are temporarily unavailable after an insufficient-capacity
// error. It is pure: nothing here reads a clock, the network or a file; time
// is always an argument and the only input functions parse an io.Reader the
// caller opened. The same inputs give the same prices on every machine.
package pricing
