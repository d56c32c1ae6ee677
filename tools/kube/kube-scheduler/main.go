// Command kube-scheduler is Kubernetes' own kube-scheduler (k8s.io/kubernetes/cmd/kube-scheduler), built
// from its Go module for the chart tests' local control plane (e2e/src/kube-control-plane.ts).
package main

import (
	"os"

	"k8s.io/component-base/cli"
	_ "k8s.io/component-base/logs/json/register"
	_ "k8s.io/component-base/metrics/prometheus/clientgo"
	_ "k8s.io/component-base/metrics/prometheus/version"
	"k8s.io/kubernetes/cmd/kube-scheduler/app"
)

func main() {
	os.Exit(cli.Run(app.NewSchedulerCommand()))
}
