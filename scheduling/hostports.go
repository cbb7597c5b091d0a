package scheduling

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
)

// hostPort is a port a pod binds on its node.
type hostPort struct {
	ip       string
	port     int32
	protocol corev1.Protocol
}

func (p hostPort) String() string {
	return fmt.Sprintf("%s:%d/%s", p.ip, p.port, p.protocol)
}

// podHostPorts lists the host ports of a pod's containers, with the
// defaults Kubernetes applies: IP 0.0.0.0 and protocol TCP.
func podHostPorts(pod *corev1.Pod) []hostPort {
	var ports []hostPort
	for _, containers := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
		for i := range containers {
			// By index: a corev1.Container is too large to copy for its ports.
			for _, p := range containers[i].Ports {
				if p.HostPort == 0 {
					continue
				}
				hp := hostPort{ip: p.HostIP, port: p.HostPort, protocol: p.Protocol}
				if hp.ip == "" {
					hp.ip = "0.0.0.0"
				}
				if hp.protocol == "" {
					hp.protocol = corev1.ProtocolTCP
				}
				ports = append(ports, hp)
			}
		}
	}
	return ports
}

// conflicts reports whether two host ports cannot share a node: same port
// and protocol, and the same IP or either one a wildcard.
func (p hostPort) conflicts(q hostPort) bool {
	if p.port != q.port || p.protocol != q.protocol {
		return false
	}
	return p.ip == q.ip || isWildcard(p.ip) || isWildcard(q.ip)
}

func isWildcard(ip string) bool { return ip == "0.0.0.0" || ip == "::" }

// portConflict returns an error naming the first of ports that conflicts
// with one already used.
func portConflict(used, ports []hostPort) error {
	for _, p := range ports {
		for _, u := range used {
			if p.conflicts(u) {
				return fmt.Errorf("host port %s conflicts with %s already in use", p, u)
			}
		}
	}
	return nil
}
