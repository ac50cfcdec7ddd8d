#!/usr/bin/env bash
# Offline checks of the cloud-run infrastructure (terraform/, .github/, the box
# entry script), for machines that cannot reach the Terraform registry:
#   tofu fmt -check and an HCL parse (OpenTofu built from the Go module proxy),
#   tflint core rules, checkov (zero failed checks, every skip with its reason),
#   actionlint (with shellcheck on every run: block), shellcheck on our scripts,
#   the rendered cloud-init user data, and pytest: reaper / wait / cost / input
#   validation against moto's EC2+S3 server on 127.0.0.1, and the box entry
#   script end to end with the cloud commands replaced.
# Tools are built once into $SAMEBOX_TOOLS_DIR (default ~/.cache/samebox-tools)
# and rebuilt only when their pinned go.mod/go.sum or requirements change.
# Checks are functions run through check(), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1

tools=${SAMEBOX_TOOLS_DIR:-$HOME/.cache/samebox-tools}
bin="$tools/bin"
mkdir -p "$bin"
export PATH="$bin:/usr/local/go/bin:$PATH"
# OpenTofu: no user CLI config (this machine may point TF_CLI_CONFIG_FILE at a
# missing file), no version checks, nothing from the network.
export TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/samebox-infra-lint.XXXXXX")
pass=0; fail=0
suite_start=$(date +%s)

note() { printf '%s infra-lint: %s\n' "$(date -u +%H:%M:%S)" "$*"; }

check() { # <name> <command...>: one counted check, its output kept in the log dir
  local name=$1; shift
  local log="$log_dir/${name//[^A-Za-z0-9_.-]/_}.log" start=$SECONDS
  if "$@" >"$log" 2>&1; then
    pass=$((pass + 1)); printf 'ok    %-46s %4ss\n' "$name" $((SECONDS - start))
  else
    fail=$((fail + 1)); printf 'FAIL  %-46s %4ss\n' "$name" $((SECONDS - start))
    tail -n 60 "$log" | sed 's/^/      /'
  fi
}

finish() { note "total $(( $(date +%s) - suite_start ))s, logs in $log_dir"; echo "$pass passed, $fail failed"; exit $(( fail > 0 )); }

# --- tools, idempotently -----------------------------------------------------

apt_install() { # <package...>
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p"); done
  (( ${#missing[@]} )) || return 0
  local sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
  note "apt-get install ${missing[*]}"
  $sudo apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

build_go_tool() { # <binary> <module dir> <package> [-X flags]: rebuild when the pinned module changes
  local name=$1 dir=$2 pkg=$3 xflags=${4:-} stamp want
  stamp="$bin/.$name.sha256"
  want=$( (cat "$dir/go.mod" "$dir/go.sum"; echo "$xflags") | sha256sum | cut -d' ' -f1)
  if [[ -x "$bin/$name" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then return 0; fi
  note "building $name from $dir (first run only; cached in $bin)"
  local start=$SECONDS
  (cd "$dir" && GOFLAGS=-mod=readonly go build -trimpath -ldflags="-s $xflags" -o "$bin/$name" "$pkg") || return 1
  echo "$want" > "$stamp"
  note "built $name in $((SECONDS - start))s"
}

setup_venv() { # <venv dir> <requirements file>: (re)install when the requirements change
  local venv=$1 requirements=$2 stamp want
  stamp="$venv/.requirements.sha256"
  want=$(sha256sum "$requirements" | cut -d' ' -f1)
  if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then return 0; fi
  note "pip install -r $requirements into $venv"
  if ! python3 -m venv "$venv" 2>/dev/null; then apt_install python3-venv && python3 -m venv "$venv"; fi || return 1
  "$venv/bin/pip" install --quiet --upgrade pip && "$venv/bin/pip" install --quiet -r "$requirements" || return 1
  echo "$want" > "$stamp"
}

setup_start=$(date +%s)
command -v go >/dev/null || { note "go is not installed (expected /usr/local/go/bin/go)"; fail=$((fail + 1)); finish; }
check "setup: shellcheck (apt)" apt_install shellcheck git
# dev=no: a release version string, so required_version constraints match it.
check "setup: tofu (go build)" build_go_tool tofu terraform/tools/tofu github.com/opentofu/opentofu/cmd/tofu \
  "-X github.com/opentofu/opentofu/version.dev=no"
check "setup: tflint (go build)" build_go_tool tflint terraform/tools/tflint github.com/terraform-linters/tflint
check "setup: actionlint (go build)" build_go_tool actionlint terraform/tools/actionlint github.com/rhysd/actionlint/cmd/actionlint
check "setup: pytest + moto venv (pip)" setup_venv "$tools/venv-tests" terraform/tests/requirements.txt
check "setup: checkov venv (pip)" setup_venv "$tools/venv-checkov" terraform/tools/checkov/requirements.txt
note "setup took $(( $(date +%s) - setup_start ))s"
(( fail == 0 )) || finish

# --- Terraform ----------------------------------------------------------------

# fmt parses every .tf file (a syntax error fails it). `validate` needs the AWS
# provider, which cannot be downloaded here: the ci workflow runs the real one.
# tflint below loads each module's whole configuration; the user data check
# evaluates the module's templatefile() with OpenTofu itself.
check "tofu fmt -check terraform/ (parses all HCL)" tofu fmt -check -recursive -diff terraform/

render_user_data() { # renders with OpenTofu itself, then lints the result
  local out="$log_dir/user-data.sh" work
  work=$(mktemp -d)
  cp terraform/box/user-data.sh.tftpl terraform/box/run-on-box.sh "$work/"
  cat > "$work/render.tf" <<'HCL'
output "user_data" {
  value = templatefile("${path.module}/user-data.sh.tftpl", {
    box_env = {
      SAMEBOX_RUN_ID = "20300101T000000Z-full-c6a-4xlarge", SAMEBOX_PROFILE = "full",
      SAMEBOX_STUDIES = "oltp,mcp-db,analytical", SAMEBOX_SYSTEMS = "postgresql,mariadb,mysql,sqlite,duckdb",
      SAMEBOX_MAX_MINUTES = "240", SAMEBOX_ROLE = "single"
    }
    box_script = file("${path.module}/run-on-box.sh")
  })
}
output "user_data_base64_gzip_bytes" {
  value = length(base64gzip(templatefile("${path.module}/user-data.sh.tftpl", {
    box_env = { SAMEBOX_MAX_MINUTES = "240" }, box_script = file("${path.module}/run-on-box.sh")
  })))
}
HCL
  (cd "$work" && tofu init -input=false -no-color >/dev/null && tofu apply -auto-approve -input=false -no-color >/dev/null \
     && tofu output -raw user_data > "$out" && tofu output -raw user_data_base64_gzip_bytes > "$out.size") || { rm -rf "$work"; return 1; }
  rm -rf "$work"
  local size; size=$(cat "$out.size")
  echo "rendered user data: $(wc -c < "$out") bytes, $size bytes gzip+base64 (EC2 limit 16384)"
  (( size < 16384 )) || { echo "user data too large"; return 1; }
  head -n 1 "$out" | grep -q '^#!/bin/bash' || { echo "user data does not start with #!/bin/bash"; return 1; }
  # The timer must be the first command, before anything that could hang.
  local first
  first=$(awk '!/^#/ && NF { print; exit }' "$out")
  [[ "$first" == "shutdown -h +240 "* ]] || { echo "first command is not the shutdown timer: $first"; return 1; }
  grep -q "^SAMEBOX_STUDIES='oltp,mcp-db,analytical'$" "$out" || { echo "env file not rendered"; return 1; }
  bash -n "$out" && shellcheck -s bash "$out"
}
check "user data renders, <16 KiB, timer first, shellcheck" render_user_data

for module in bootstrap run; do
  check "tflint terraform/$module" tflint --chdir="terraform/$module" --config="$PWD/terraform/.tflint.hcl" --format=compact
done

checkov_clean() {
  "$tools/venv-checkov/bin/checkov" --directory terraform --framework terraform --quiet --compact --skip-download \
    --output cli > "$log_dir/checkov.txt" 2>&1
  local rc=$?
  cat "$log_dir/checkov.txt"
  grep -E "Passed checks: [0-9]+, Failed checks: 0," "$log_dir/checkov.txt" >/dev/null || return 1
  return "$rc"
}
check "checkov terraform/ (zero failed)" checkov_clean

skips_have_reasons() {
  local bad
  bad=$(grep -rn --include='*.tf' 'checkov:skip=' terraform | grep -vE 'checkov:skip=CKV2?_[A-Z0-9_]+:[^ ].{15,}')
  [[ -z "$bad" ]] || { echo "checkov skips without a reason:"; echo "$bad"; return 1; }
  echo "$(grep -rc --include='*.tf' 'checkov:skip=' terraform | awk -F: '{s+=$2} END {print s}') skips, each with its reason"
}
check "every checkov skip carries its reason" skips_have_reasons

# --- GitHub Actions and shell ---------------------------------------------------

check "actionlint .github/workflows (+shellcheck)" actionlint -color=false .github/workflows/*.yml
check "shellcheck box script and this suite" shellcheck -x terraform/box/run-on-box.sh pipeline/bin/test.d/50-infra-lint.sh

# --- pytest: moto server + box entry script ---------------------------------------

pytest_suite() {
  "$tools/venv-tests/bin/python" -m pytest terraform/tests -q -p no:cacheprovider -rs > "$log_dir/pytest.txt" 2>&1
  local rc=$?
  cat "$log_dir/pytest.txt"
  return "$rc"
}
pytest_start=$SECONDS
pytest_suite
pytest_rc=$?
summary=$(grep -E '^(=+ )?[0-9]+ (passed|failed)' "$log_dir/pytest.txt" | tail -n 1)
p=$(grep -oE '[0-9]+ passed' <<<"$summary" | grep -oE '[0-9]+'); f=$(grep -oE '[0-9]+ failed' <<<"$summary" | grep -oE '[0-9]+')
e=$(grep -oE '[0-9]+ errors?' <<<"$summary" | grep -oE '[0-9]+')
p=${p:-0}; f=$(( ${f:-0} + ${e:-0} ))
if (( pytest_rc != 0 && f == 0 )); then f=1; fi
pass=$((pass + p)); fail=$((fail + f))
printf '%s  %-46s %4ss\n' "$( (( f == 0 )) && echo 'ok   ' || echo 'FAIL ')" "pytest terraform/tests: $p passed, $f failed" $((SECONDS - pytest_start))
(( f == 0 )) || tail -n 80 "$log_dir/pytest.txt" | sed 's/^/      /'

finish
