package scheduling

// claimMore is what a claim holds only when some pod of it asks for host
// ports, holds devices or attaches volumes; most claims have none, and
// keeping it apart keeps the claim small.
type claimMore struct {
	hostPorts []hostPort
	// devices are, per option, what the pods hold of its devices when
	// some pod's claims are allocated on it (DeviceAllocator).
	devices map[*typeOption]any
	// volumes are the persistent volumes the claim's pods attach, kept
	// when some option of its template limits volumes (volumeLimited).
	volumes volumeUsage
}

// moreOf returns the claim's claimMore, made on first use.
func (c *claim) moreOf() *claimMore {
	if c.more == nil {
		c.more = &claimMore{}
	}
	return c.more
}

// ports are the host ports of the claim's pods; none for a nil m.
func (m *claimMore) ports() []hostPort {
	if m == nil {
		return nil
	}
	return m.hostPorts
}

// volumeUsage is the volumes the claim's pods attach; none for a nil m.
func (m *claimMore) volumeUsage() volumeUsage {
	if m == nil {
		return nil
	}
	return m.volumes
}

// deviceState is what the claim's pods hold of the option's devices; nil
// for a nil m.
func (m *claimMore) deviceState(o *typeOption) any {
	if m == nil {
		return nil
	}
	return m.devices[o]
}
