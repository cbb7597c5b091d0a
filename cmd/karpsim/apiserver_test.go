package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/karpsim/karpsim/kube/kubetest"
)

// TestAgainstARealAPIServer runs plan, disrupt and explain against a real
// kube-apiserver holding a scenario's objects, and wants them to decide,
// byte for byte, what they decide on the same objects dumped with kubectl
// (-f); and each way of not being able to read the cluster to give one
// error, exit code 1 and no write. It is skipped, saying how to install
// them, where etcd or kube-apiserver is missing.
func TestAgainstARealAPIServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd and kube-apiserver; not with -short")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("no kubectl on PATH to dump the cluster with")
	}
	s := kubetest.StartAPIServer(t)
	admin := s.Kubeconfig(t, "admin", kubetest.AdminToken)

	code, stdout, stderr := runCmd("plan", "--kubeconfig", admin)
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "install Karpenter's CRDs (the CustomResourceDefinition nodepools.karpenter.sh)")

	s.InstallCRDs(t)
	data, err := os.ReadFile(disruptScenario("do-not-disrupt-and-pdb"))
	require.NoError(t, err)
	objs, err := kubetest.Objects(data)
	require.NoError(t, err)
	pending := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "api-0", Namespace: "shop"}}
	pending.Spec.Containers = []corev1.Container{{Name: "api", Image: "api", Resources: corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3"), corev1.ResourceMemory: resource.MustParse("4Gi")}}}}
	s.Create(t, append(objs, pending)...)
	before := resourceVersions(t, s)

	dump := filepath.Join(t.TempDir(), "cluster.yaml")
	out, err := exec.Command(kubectl, "--kubeconfig", admin, "get", "-A", "-o", "yaml",
		"pods,nodes,pdb,daemonsets,pvc,pv,storageclasses,nodepools.karpenter.sh,nodeclaims.karpenter.sh,ec2nodeclasses.karpenter.k8s.aws").Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(dump, out, 0o600))

	at := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	for _, args := range [][]string{
		{"plan"}, {"plan", "-o", "json"},
		{"disrupt", "--at", at}, {"disrupt", "--at", at, "-o", "json"},
		{"explain", "pod", "shop/api-0"},
		{"explain", "node", "ip-10-0-2-11.ec2.internal", "--at", at},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, want, stderr := runCmd(append(args, "-f", dump)...)
			require.Equal(t, 0, code, stderr)
			code, got, stderr := runCmd(append(args, "--kubeconfig", admin)...)
			require.Equal(t, 0, code, stderr)
			assert.Equal(t, want, got)
			assert.Contains(t, stderr, "from context admin ("+s.URL+")")
		})
	}
	assert.Equal(t, before, resourceVersions(t, s), "the commands wrote nothing")

	// dev may read everything but NodeClaims.
	s.Create(t, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "no-nodeclaims"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "policy", "storage.k8s.io"}, Resources: []string{"*"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"karpenter.sh"}, Resources: []string{"nodepools"}, Verbs: []string{"list", "watch"}},
		{APIGroups: []string{"karpenter.k8s.aws"}, Resources: []string{"ec2nodeclasses"}, Verbs: []string{"list", "watch"}},
	}}, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "dev"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "no-nodeclaims"},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: "dev", APIGroup: "rbac.authorization.k8s.io"}}})
	dev := s.Kubeconfig(t, "dev", kubetest.DevToken)
	require.Eventually(t, func() bool {
		code, _, stderr = runCmd("disrupt", "--kubeconfig", dev)
		return !strings.Contains(stderr, "list pods")
	}, 30*time.Second, 200*time.Millisecond, "RBAC takes the binding: %s", stderr)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "list nodeclaims.karpenter.sh: forbidden: the credentials may not list and watch nodeclaims.karpenter.sh cluster-wide")
	assert.Equal(t, 1, strings.Count(stderr, "\n"), "one line: %s", stderr)

	code, _, stderr = runCmd("plan", "--kubeconfig", admin, "--context", "prod")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, `no context "prod" (contexts: admin)`)
	assert.Equal(t, before, resourceVersions(t, s), "the commands wrote nothing")
}

// resourceVersions are the resource versions of the objects karpsim reads
// and could write.
func resourceVersions(t *testing.T, s *kubetest.APIServer) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, r := range []schema.GroupVersionResource{
		{Version: "v1", Resource: "pods"}, {Version: "v1", Resource: "nodes"},
		{Group: "karpenter.sh", Version: "v1", Resource: "nodeclaims"}, {Group: "karpenter.sh", Version: "v1", Resource: "nodepools"},
	} {
		list, err := s.Admin.Dynamic.Resource(r).List(context.Background(), metav1.ListOptions{})
		require.NoError(t, err)
		for _, item := range list.Items {
			out[r.Resource+"/"+item.GetNamespace()+"/"+item.GetName()] = item.GetResourceVersion()
		}
	}
	return out
}
