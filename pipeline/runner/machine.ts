import { readFileSync } from "node:fs";
import os from "node:os";
import { execFileSync, spawnSync } from "node:child_process";
import type { RunManifest } from "../schema/types.ts";

// The manifest's machine (pipeline/schema/manifest.schema.json); the probes below always fill every field.
export type MachineInfo = Required<RunManifest["machine"]>;
export type CloudInfo = Required<NonNullable<MachineInfo["cloud"]>>;

function osPrettyName(): string {
  try {
    const m = readFileSync("/etc/os-release", "utf8").match(/^PRETTY_NAME="?([^"\n]*)"?/m);
    if (m) return m[1];
  } catch {
    /* not Linux */
  }
  return `${os.type()} ${os.release()}`;
}

function readSys(file: string): string {
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    return "";
  }
}

const readDmi = (field: string) => readSys(`/sys/devices/virtual/dmi/id/${field}`);

/**
 * How the guest idles (Linux cpuidle; "unknown" elsewhere). With haltpoll and guest_halt_poll_ns 0 an idle vCPU
 * halts at once, and a client/server round trip across vCPUs pays the hypervisor's wake-up (host-speed.ts
 * wakeupRttUs); the cloud's guests usually poll a while first. Recorded, as every setting that moves figures is.
 */
function cpuidleSettings(): string {
  const dir = "/sys/devices/system/cpu/cpuidle";
  const driver = readSys(`${dir}/current_driver`);
  if (!driver) return "unknown";
  const governor = readSys(`${dir}/current_governor`) || readSys(`${dir}/current_governor_ro`) || "unknown";
  const poll = readSys("/sys/module/haltpoll/parameters/guest_halt_poll_ns");
  return `driver ${driver}, governor ${governor}${driver === "haltpoll" && poll ? `, guest_halt_poll_ns ${poll}` : ""}`;
}

/**
 * Which CPU the vCPUs are, from /proc/cpuinfo's first processor and cpu0's caches and clock ("unknown" where there
 * is no cpuinfo): a hypervisor may name every host "AMD EPYC", and the label with it, while family, model, clock
 * and L3 tell one host's hardware from another's (here family 25 model 1 at 2445 MHz is a Zen 3 EPYC 7763's clock).
 * No microcode or momentary clock: they change on one host, and two runs' identities are compared (host-speed.ts).
 */
export function cpuIdentity(cpuinfo = readSys("/proc/cpuinfo"), cpuDir = "/sys/devices/system/cpu/cpu0"): string {
  const first = cpuinfo.split(/\n\s*\n/)[0] ?? "";
  // The first of the named fields present: x86's names first, then Arm's (architecture, part, revision).
  const field = (...names: string[]) =>
    names.map((n) => first.match(new RegExp(`^${n}\\s*:\\s*(.*)$`, "m"))?.[1].trim()).find(Boolean) ?? "";
  const vendor = field("vendor_id", "CPU implementer");
  if (!vendor) return "unknown";
  // cpufreq's maximum where the kernel scales the clock (cpuinfo's MHz is then the moment's); a VM has none, and
  // its cpuinfo MHz is the host's fixed TSC clock.
  const maxKHz = Number.parseInt(readSys(`${cpuDir}/cpufreq/cpuinfo_max_freq`), 10);
  const mhz = Number.isFinite(maxKHz) ? maxKHz / 1000 : Number.parseFloat(field("cpu MHz"));
  const caches = [2, 3].flatMap((level) => {
    for (let i = 0; i < 8; i++) {
      const dir = `${cpuDir}/cache/index${i}`;
      if (readSys(`${dir}/level`) === String(level)) return [`L${level} ${readSys(`${dir}/size`)}`];
    }
    return [];
  });
  return [
    `${vendor} family ${field("cpu family", "CPU architecture") || "?"} model ${field("model", "CPU part") || "?"} stepping ${field("stepping", "CPU revision") || "?"}`,
    Number.isFinite(mhz) ? `${Math.round(mhz)} MHz` : "",
    ...caches,
  ]
    .filter(Boolean)
    .join(", ");
}

// Only on EC2 (DMI says so) do we ask the instance metadata service (IMDSv2), so local runs never send
// traffic anywhere. SAMEBOX_CLOUD_* variables, set by the box's user data, win over what IMDS says.
async function ec2Info(): Promise<CloudInfo | null> {
  const env = process.env;
  const fromEnv = env.SAMEBOX_CLOUD_INSTANCE_TYPE
    ? {
        provider: env.SAMEBOX_CLOUD_PROVIDER ?? "aws",
        instance_type: env.SAMEBOX_CLOUD_INSTANCE_TYPE,
        region: env.SAMEBOX_CLOUD_REGION ?? "",
        ami_id: env.SAMEBOX_CLOUD_AMI_ID ?? "",
      }
    : null;
  const onEc2 = /Amazon EC2/i.test(readDmi("sys_vendor")) || /^ec2/i.test(readDmi("product_uuid"));
  if (!onEc2) return fromEnv;
  const base = "http://169.254.169.254/latest";
  try {
    const token = await (
      await fetch(`${base}/api/token`, {
        method: "PUT",
        headers: { "X-aws-ec2-metadata-token-ttl-seconds": "300" },
        signal: AbortSignal.timeout(2000),
      })
    ).text();
    const get = async (p: string) =>
      (
        await fetch(`${base}/meta-data/${p}`, {
          headers: { "X-aws-ec2-metadata-token": token },
          signal: AbortSignal.timeout(2000),
        })
      ).text();
    return {
      provider: "aws",
      instance_type: fromEnv?.instance_type || (await get("instance-type")),
      region: fromEnv?.region || (await get("placement/region")),
      ami_id: fromEnv?.ami_id || (await get("ami-id")),
    };
  } catch {
    return fromEnv;
  }
}

export async function machineInfo(): Promise<MachineInfo> {
  const cpus = os.cpus();
  const cpu_model = (cpus[0]?.model ?? "unknown CPU").replace(/\s+/g, " ").trim();
  const cores = cpus.length;
  const memory_bytes = os.totalmem();
  const cloud = await ec2Info();
  const gib = Math.round(memory_bytes / 2 ** 30);
  const shortCpu = cpu_model
    .replace(/\(R\)|\(TM\)|CPU|Processor|\d+-Core/gi, "")
    .replace(/@.*$/, "")
    .replace(/\s+/g, " ")
    .trim();
  const label = cloud
    ? `${cloud.instance_type} (${cloud.region}), ${shortCpu}`
    : `local: ${shortCpu}, ${cores} cores, ${gib} GiB`;
  const topology = "single" as const;
  return {
    label,
    hostname: os.hostname(),
    cpu_model,
    cores,
    memory_bytes,
    kernel: os.release(),
    os: osPrettyName(),
    cpuidle: cpuidleSettings(),
    cpu_identity: cpuIdentity(),
    cloud,
    topology,
  };
}

// Versions of the tools a run may use; null when absent. One line each, as the tool prints it.
const toolCommands: Record<string, string[]> = {
  sysbench: ["sysbench", "--version"],
  pgbench: ["pgbench", "--version"],
  psql: ["psql", "--version"],
  hyperfine: ["hyperfine", "--version"],
  sqlite3: ["sqlite3", "--version"],
  mariadb_client: ["mariadb", "--version"],
  go: ["go", "version"],
  java: ["java", "-version"],
  python3: ["python3", "--version"],
  system_node: ["node", "--version"],
};

export function toolVersions(): Record<string, string | null> {
  const out: Record<string, string | null> = { node: process.version };
  for (const [name, cmd] of Object.entries(toolCommands)) {
    try {
      // java -version prints on stderr: take whichever stream has the first line.
      const r = spawnSync(cmd[0], cmd.slice(1), {
        encoding: "utf8",
        timeout: 10000,
        env: { ...process.env, PATH: `${process.env.PATH ?? ""}:/usr/local/go/bin` },
      });
      if (r.status !== 0) throw new Error("absent");
      out[name] = `${r.stdout}${r.stderr}`.trim().split("\n")[0].trim() || null;
    } catch {
      out[name] = null;
    }
  }
  return out;
}

export function gitInfo(cwd: string): { commit: string; dirty: boolean } {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    // Results under data/ do not make the code dirty.
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)data"], {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return { commit, dirty: status.trim() !== "" };
  } catch {
    return { commit: process.env.SAMEBOX_COMMIT ?? "unknown", dirty: false };
  }
}
