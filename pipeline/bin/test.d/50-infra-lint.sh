#!/usr/bin/env bash
# Offline checks of the cloud-run infrastructure (terraform/, .github/, the box
# entry script), for machines that cannot reach the Terraform registry:
#   terraform fmt -check, validate and test (mock provider) for every module, with
#   the AWS provider from a local plugin folder (SAMEBOX_TF_PLUGIN_DIR, default
#   /opt/tf-plugins) or the registry; skipped with the reason where terraform is
#   absent. tflint core rules, checkov (zero failed checks, every skip with its
#   reason), zizmor (offline audits), actionlint (with shellcheck on every run:
#   block), shellcheck on our scripts, the rendered cloud-init user data, and
#   pytest: reaper / wait / cost / input validation / the bench workflow's steps
#   against moto's EC2+S3 server on 127.0.0.1, and the box entry script end to
#   end with the cloud commands replaced.
# Tools are built once into $SAMEBOX_TOOLS_DIR (default ~/.cache/samebox-tools)
# and rebuilt only when their pinned go.mod/go.sum or requirements change.
# `--setup-only`: build and install the tools, then stop (pipeline/bin/test-prewarm.sh runs it so).
# Checks are functions run through check(), which shellcheck cannot follow.
# shellcheck disable=SC2317
set -uo pipefail
cd "$(dirname "$0")/../../.." || exit 1

tools=${SAMEBOX_TOOLS_DIR:-$HOME/.cache/samebox-tools}
bin="$tools/bin"
mkdir -p "$bin"
export PATH="$bin:/usr/local/go/bin:$PATH"
# Terraform: no user CLI config (this machine may point TF_CLI_CONFIG_FILE at a
# missing file), no version checks.
export TF_CLI_CONFIG_FILE=/dev/null CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
unset TF_PLUGIN_CACHE_DIR
plugin_dir=${SAMEBOX_TF_PLUGIN_DIR:-/opt/tf-plugins}
log_dir=$(mktemp -d "${TMPDIR:-/tmp}/samebox-infra-lint.XXXXXX")
# shellcheck source=SCRIPTDIR/../test-lib.sh
. pipeline/bin/test-lib.sh   # the one counter (pass, fail, count_pytest); check() and finish() below are this suite's own
skip=0
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

skipped() { skip=$((skip + 1)); printf 'skip  %-46s %s\n' "$1" "$2"; }

finish() { note "total $(( $(date +%s) - suite_start ))s, logs in $log_dir, $skip skipped"; echo "$pass passed, $fail failed"; exit $(( fail > 0 )); }

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
# One setup at a time (pipeline/bin/test-prewarm.sh may be running this setup in the background): the
# second waits for the first and then finds every tool current.
mkdir -p "$bin"
exec {setup_lock}>"$tools/.setup.lock"
flock -w 1800 "$setup_lock" || { note "waited 30 min for $tools/.setup.lock"; fail=$((fail + 1)); finish; }
check "setup: shellcheck (apt)" apt_install shellcheck git
# dev=no: a release version string, so required_version constraints match it.
check "setup: tflint (go build)" build_go_tool tflint terraform/tools/tflint github.com/terraform-linters/tflint
check "setup: actionlint (go build)" build_go_tool actionlint terraform/tools/actionlint github.com/rhysd/actionlint/cmd/actionlint
check "setup: pytest + moto venv (pip)" setup_venv "$tools/venv-tests" terraform/tests/requirements.txt
check "setup: checkov + zizmor venv (pip)" setup_venv "$tools/venv-checkov" terraform/tools/checkov/requirements.txt
flock -u "$setup_lock"
note "setup took $(( $(date +%s) - setup_start ))s"
(( fail == 0 )) || finish
[[ ${1:-} == --setup-only ]] && finish

# --- Terraform ----------------------------------------------------------------

have_terraform=0
command -v terraform >/dev/null && have_terraform=1
init_args=(-backend=false -input=false -no-color)
[[ -d "$plugin_dir/registry.terraform.io/hashicorp/aws" ]] && init_args+=("-plugin-dir=$plugin_dir")

tf_module() { # <module>: init (offline with the plugin folder), validate, test with the mock provider
  local dir="terraform/$1"
  terraform -chdir="$dir" init "${init_args[@]}" >/dev/null || { echo "terraform init failed in $dir (plugin folder: $plugin_dir)"; return 1; }
  terraform -chdir="$dir" validate -no-color || return 1
  terraform -chdir="$dir" test -no-color > "$log_dir/tftest-$1.txt" 2>&1; local rc=$?
  cat "$log_dir/tftest-$1.txt"
  return "$rc"
}

render_user_data() { # renders the template with terraform itself, then lints the result
  local out="$log_dir/user-data.sh" work
  work=$(mktemp -d)
  cp terraform/box/user-data.sh.tftpl terraform/box/run-on-box.sh "$work/"
  cat > "$work/render.tf" <<'HCL'
output "user_data" {
  value = templatefile("${path.module}/user-data.sh.tftpl", {
    box_env = {
      SAMEBOX_RUN_ID = "20300101T000000Z-full-c6a-4xlarge-oltp", SAMEBOX_PROFILE = "full",
      SAMEBOX_STUDIES = "oltp", SAMEBOX_SYSTEMS = "postgresql,mariadb,mysql",
      SAMEBOX_MAX_MINUTES = "240", SAMEBOX_UPLOAD_INTERVAL_SECONDS = "300"
    }
    box_script = file("${path.module}/run-on-box.sh")
  })
}
HCL
  (cd "$work" && terraform init -input=false -no-color >/dev/null && terraform apply -auto-approve -input=false -no-color >/dev/null \
     && terraform output -raw user_data > "$out") || { rm -rf "$work"; return 1; }
  rm -rf "$work"
  echo "rendered user data: $(wc -c < "$out") bytes"
  bash -n "$out" && shellcheck -s bash "$out"
}

if (( have_terraform )); then
  note "$(terraform version | head -n 1); provider from ${init_args[*]: -1}"
  check "terraform fmt -check terraform/" terraform fmt -check -recursive -diff terraform/
  for module in bootstrap run; do
    check "terraform validate + test terraform/$module" tf_module "$module"
  done
  tests_run=$(cat "$log_dir"/tftest-*.txt 2>/dev/null | grep -oE 'Success! [0-9]+ passed' | awk '{s+=$2} END {print s+0}')
  note "terraform test: $tests_run runs passed (mock provider)"
  check "user data renders, bash -n, shellcheck" render_user_data
else
  skipped "terraform fmt/validate/test" "terraform is not on PATH (install Terraform >= 1.10; CI's ci workflow runs them)"
fi

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
zizmor_clean() { "$tools/venv-checkov/bin/zizmor" --offline --no-progress --color=never .github/workflows/; }
check "zizmor .github/workflows (offline audits)" zizmor_clean
check "shellcheck box script, workflow steps, this suite" shellcheck -x terraform/box/run-on-box.sh terraform/scripts/*.sh \
  pipeline/bin/test.d/50-infra-lint.sh pipeline/bin/test.d/51-workflow-steps.sh

# --- pytest: moto server + box entry script ---------------------------------------

pytest_suite() {
  # One worker per core (at most 4); each worker starts its own moto server (conftest's session fixture).
  local workers; workers=$(nproc); (( workers > 4 )) && workers=4
  "$tools/venv-tests/bin/python" -m pytest terraform/tests -q -p no:cacheprovider -rs -n "$workers" > "$log_dir/pytest.txt" 2>&1
  local rc=$?
  cat "$log_dir/pytest.txt"
  return "$rc"
}
pytest_start=$SECONDS
pytest_suite
pytest_rc=$?
count_pytest "pytest terraform/tests" "$pytest_rc" "$log_dir/pytest.txt"
note "pytest terraform/tests took $((SECONDS - pytest_start))s"
(( pytest_rc == 0 )) || tail -n 80 "$log_dir/pytest.txt" | sed 's/^/      /'

finish
