# No provider settings: no discount, no carbon price (so no carbon line).
data "gpu_tco" "defaults" {
  cloud         = "aws"
  region        = "us-east-1"
  instance_type = "g5.xlarge"
  months        = 1
}
