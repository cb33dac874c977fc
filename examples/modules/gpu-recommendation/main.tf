# A module for module authors: workload variables in, a recommendation out.
# Compose it with your own cloud modules (for_each on the cloud, pass
# instance_type and node count to an autoscaling group or node pool).
data "gpu_recommendation" "this" {
  workload    = var.workload
  constraints = var.constraints
  objective   = var.objective
  top         = var.alternatives + 1
}

locals {
  best = data.gpu_recommendation.this.best
}
