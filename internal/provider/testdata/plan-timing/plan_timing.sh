#!/usr/bin/env bash
# Times `terraform plan` of a configuration with 20 gpu_recommendation data
# sources against two floors of the smallest possible framework provider
# (minprov/), in one run, and prints the ratios:
#   - 20 data sources that echo a string: what any plugin pays for starting
#     three times per plan (the original yardstick);
#   - 20 data sources that compute nothing but return six candidate-sized
#     rows each (gpu_table): what carrying a recommendation's outputs through
#     the framework and Terraform costs. The ratio to this floor is the cost
#     of the provider's own work (target: <= 1.2).
# For context it also times 20 terraform_data resources, built into Terraform.
#
#   internal/provider/testdata/plan-timing/plan_timing.sh [runs]
#
# TERRAFORM (default: the terraform on PATH; make plan-timing passes the one the make targets use) is the CLI to use.
# The provider is built from this checkout and used through dev_overrides,
# so nothing is downloaded. Each configuration is planned `runs` times
# (default 7) alternately; the medians are compared.
set -euo pipefail
runs=${1:-7}
root=$(cd "$(dirname "$0")/../../../.." && pwd)
tf=${TERRAFORM:-$(command -v terraform)}
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

mkdir -p "$work/gpu" "$work/data" "$work/floor" "$work/sized"
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

# The sized floor: best + 5 candidates per data source, like top = 5.
{
  echo 'terraform {'
  echo '  required_providers {'
  echo '    gpu = { source = "gpuplan/gpu" }'
  echo '  }'
  echo '}'
  for i in $(seq 1 20); do
    echo "data \"gpu_table\" \"r$i\" { rows = 6 }"
    echo "output \"r$i\" { value = data.gpu_table.r$i.table[0].s01 }"
  done
} >"$work/sized/main.tf"

plan() {
  local rc="$work/bin.tfrc"
  [ "$1" = floor ] || [ "$1" = sized ] && rc="$work/minbin.tfrc"
  (cd "$work/$1" && TF_CLI_CONFIG_FILE="$rc" "$tf" plan -input=false -lock=false -no-color >"$work/$1.out" 2>&1) || { cat "$work/$1.out"; exit 1; }
}
# ms prints the wall-clock and the CPU time (user + system of Terraform and
# every plugin process it started and reaped) of one plan, in ms. CPU time
# moves far less than wall-clock on a loaded machine.
ms() {
  local s e cpu
  s=$(date +%s%N)
  cpu=$( { /usr/bin/time -f '%U %S' bash -c "$(declare -f plan); work='$work' tf='$tf' plan $1" ; } 2>&1 >/dev/null | tail -1)
  e=$(date +%s%N)
  echo "$(( (e - s) / 1000000 )) $(awk -v u="${cpu% *}" -v y="${cpu#* }" 'BEGIN { printf "%d", (u + y) * 1000 }')"
}

plan gpu; plan data; plan floor; plan sized # warm-up (page cache, plugin binaries)
gpu_t=(); data_t=(); floor_t=(); sized_t=(); gpu_c=(); data_c=(); floor_c=(); sized_c=()
for _ in $(seq 1 "$runs"); do
  read -r w c < <(ms gpu); gpu_t+=("$w"); gpu_c+=("$c")
  read -r w c < <(ms data); data_t+=("$w"); data_c+=("$c")
  read -r w c < <(ms floor); floor_t+=("$w"); floor_c+=("$c")
  read -r w c < <(ms sized); sized_t+=("$w"); sized_c+=("$c")
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
g=$(median "${gpu_t[@]}"); d=$(median "${data_t[@]}"); f=$(median "${floor_t[@]}"); z=$(median "${sized_t[@]}")
gc=$(median "${gpu_c[@]}"); dc=$(median "${data_c[@]}"); fc=$(median "${floor_c[@]}"); zc=$(median "${sized_c[@]}")
echo "terraform: $("$tf" version | head -1)"
echo "20 gpu_recommendation data sources: median ${g} ms wall, ${gc} ms CPU (wall runs: ${gpu_t[*]})"
echo "20 terraform_data resources:        median ${d} ms wall, ${dc} ms CPU (wall runs: ${data_t[*]})"
echo "20 data sources of a minimal framework provider (floor): median ${f} ms wall, ${fc} ms CPU (wall runs: ${floor_t[*]})"
echo "20 minimal data sources returning recommendation-sized outputs: median ${z} ms wall, ${zc} ms CPU (wall runs: ${sized_t[*]})"
awk -v g="$g" -v f="$f" -v gc="$gc" -v fc="$fc" -v d="$d" -v z="$z" -v zc="$zc" 'BEGIN {
  printf "ratio gpu_recommendation / minimal provider, same outputs: %.2f wall, %.2f CPU (target <= 1.2)\n", g / z, gc / zc
  printf "ratio gpu_recommendation / minimal provider, echo:         %.2f wall, %.2f CPU\n", g / f, gc / fc
  printf "ratio minimal provider / terraform_data:     %.2f wall (what any plugin pays over a built-in resource)\n", f / d
}'
