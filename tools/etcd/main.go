// Command etcd is etcd's own server (go.etcd.io/etcd/server/v3/etcdmain), built from its Go module for
// the chart tests' local control plane (e2e/src/kube-control-plane.ts).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() {
	etcdmain.Main(os.Args)
}
