# The examples/modules/budget-guard module, reached through the symlink
# testdata/TestAccTCOBudgetGuard/budget-guard (the test harness links the
# package's testdata folder into its working directory).
variable "budget" {
  type = number
}

module "guard" {
  source             = "./testdata/TestAccTCOBudgetGuard/budget-guard"
  cloud              = "aws"
  region             = "us-east-1"
  instance_type      = "g5.xlarge"
  instance_count     = 2
  months             = 1
  monthly_budget_usd = var.budget
}

output "monthly_cost_usd" {
  value = module.guard.monthly_cost_usd
}
