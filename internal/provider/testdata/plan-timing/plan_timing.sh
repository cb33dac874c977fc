#!/usr/bin/env bash
# Times `terraform plan` of a configuration with 20 gpu_recommendation data
# sources against the same configuration shape with 20 terraform_data
# resources, in one run, and prints the ratio (target: <= 1.5). For context
# it also times 20 data sources of the smallest possible framework provider
# (minprov/): what any plugin pays for starting three times per plan.
#
#   internal/provider/testdata/plan-timing/plan_timing.sh [runs]
#
# TERRAFORM (default ~/.cache/gpu-tf/1.8.5/terraform) is the CLI to use.
# The provider is built from this checkout and used through dev_overrides,
# so nothing is downloaded. Each configuration is planned `runs` times
# (default 7) alternately; the medians are compared.
set -euo pipefail
runs=${1:-7}
root=$(cd "$(dirname "$0")/../../../.." && pwd)
tf=${TERRAFORM:-$HOME/.cache/gpu-tf/1.8.5/terraform}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$root" && go build -trimpath -o "$work/bin/terraform-provider-gpu" .)
# The floor: the smallest framework provider, under the same address.
(cd "$root" && go build -trimpath -o "$work/minbin/terraform-provider-gpu" ./internal/provider/testdata/plan-timing/minprov)
for b in bin minbin; do
  cat >"$work/$b.tfrc" <<CFG
provider_installation {
  dev_overrides {
    "gpuplan/gpu" = "$work/$b"
  }
  direct {}
}
CFG
done
export TF_CLI_CONFIG_FILE="$work/bin.tfrc" CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1

mkdir -p "$work/gpu" "$work/data" "$work/floor"
{
  echo 'terraform {'
  echo '  required_providers {'
  echo '    gpu = { source = "gpuplan/gpu" }'
  echo '  }'
  echo '}'
  for i in $(seq 1 20); do
    if (( i % 2 )); then
      cat <<HCL
data "gpu_recommendation" "r$i" {
  workload = {
    kind               = "fine_tuning"
    model_parameters_b = $(( 4 * i ))
    training_tokens_b  = 2
  }
  constraints = { deadline_hours = 72 }
}
HCL
    else
      cat <<HCL
data "gpu_recommendation" "r$i" {
  workload = {
    kind              = "inference"
    model_parameters_b = $(( 4 * i ))
    tokens_per_second = $(( 1000 * i ))
  }
  objective = "balanced"
}
HCL
    fi
    echo "output \"r$i\" { value = data.gpu_recommendation.r$i.best.instance_type }"
  done
} >"$work/gpu/main.tf"
{
  for i in $(seq 1 20); do
    cat <<HCL
resource "terraform_data" "r$i" {
  input = {
    kind               = "fine_tuning"
    model_parameters_b = $(( 4 * i ))
  }
}
output "r$i" { value = terraform_data.r$i.input.kind }
HCL
  done
} >"$work/data/main.tf"

{
  echo 'terraform {'
  echo '  required_providers {'
  echo '    gpu = { source = "gpuplan/gpu" }'
  echo '  }'
  echo '}'
  for i in $(seq 1 20); do
    echo "data \"gpu_echo\" \"r$i\" { input = \"x$i\" }"
    echo "output \"r$i\" { value = data.gpu_echo.r$i.output }"
  done
} >"$work/floor/main.tf"

plan() {
  local rc="$work/bin.tfrc"
  [ "$1" = floor ] && rc="$work/minbin.tfrc"
  (cd "$work/$1" && TF_CLI_CONFIG_FILE="$rc" "$tf" plan -input=false -lock=false -no-color >"$work/$1.out" 2>&1) || { cat "$work/$1.out"; exit 1; }
}
ms() { local s e; s=$(date +%s%N); plan "$1"; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }

plan gpu; plan data; plan floor # warm-up (page cache, plugin binaries)
gpu_t=(); data_t=(); floor_t=()
for _ in $(seq 1 "$runs"); do
  gpu_t+=("$(ms gpu)"); data_t+=("$(ms data)"); floor_t+=("$(ms floor)")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
g=$(median "${gpu_t[@]}"); d=$(median "${data_t[@]}"); f=$(median "${floor_t[@]}")
echo "terraform: $("$tf" version | head -1)"
echo "20 gpu_recommendation data sources: median ${g} ms (runs: ${gpu_t[*]})"
echo "20 terraform_data resources:        median ${d} ms (runs: ${data_t[*]})"
echo "20 data sources of a minimal framework provider (floor): median ${f} ms (runs: ${floor_t[*]})"
awk -v g="$g" -v d="$d" -v f="$f" 'BEGIN {
  printf "ratio gpu_recommendation / terraform_data: %.2f (target <= 1.5)\n", g / d
  printf "ratio minimal provider / terraform_data:   %.2f (the floor for any plugin provider)\n", f / d
  printf "ratio gpu_recommendation / minimal provider: %.2f\n", g / f
}'
