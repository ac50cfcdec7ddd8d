locals {
  # The single list of valid inputs, shared with the workflow's validation.
  # allowed.json plus the studies and the systems: every folder of bench-scripts/studies with a study.json
  # and of bench-scripts/systems with a system.json (a study or a system is one folder, so copying one
  # needs no edit here; validate_inputs.py derives the same lists).
  allowed = merge(jsondecode(file("${path.module}/../allowed.json")), {
    studies = sort([for f in fileset("${path.module}/../../bench-scripts/studies", "*/study.json") : dirname(f)])
    systems = sort([for f in fileset("${path.module}/../../bench-scripts/systems", "*/system.json") : dirname(f)])
  })
}

variable "region" {
  type        = string
  description = "AWS region of the bootstrap (results bucket, security groups, instance profile)."

  validation {
    condition     = contains(local.allowed.regions, var.region)
    error_message = "region must be one of the regions in terraform/allowed.json (us-east-1, us-east-2, us-west-2, eu-west-1, eu-central-1); an empty region is not one."
  }
}

variable "project" {
  type        = string
  description = "Project tag value; must match the bootstrap's, whose IAM conditions key on it."
  default     = "samebox"
}

variable "run_id" {
  type        = string
  description = "The run id, YYYYMMDDTHHMMSSZ-<profile>-<slug>; becomes data/runs/<run-id>/ and the samebox:run-id tag."

  validation {
    condition     = can(regex("^[0-9]{8}T[0-9]{6}Z-[a-z0-9-]+$", var.run_id))
    error_message = "run_id must look like 20250101T120000Z-full-c6a-4xlarge (YYYYMMDDTHHMMSSZ-<lowercase slug>)."
  }
}

variable "expires_at" {
  type        = string
  description = "UTC time (RFC 3339, e.g. 2025-01-01T18:00:00Z) after which the reaper terminates the box whatever its state."

  validation {
    condition     = can(regex("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z$", var.expires_at))
    error_message = "expires_at must be an RFC 3339 UTC time like 2025-01-01T18:00:00Z."
  }
}

variable "instance_type" {
  type        = string
  description = "EC2 instance type of the box(es); the published MCP × databases study used c6a.4xlarge."
  default     = "c6a.4xlarge"

  validation {
    condition     = contains(local.allowed.instance_types, var.instance_type)
    error_message = "instance_type must be one of the instance_types in terraform/allowed.json (c6a.4xlarge, c6a.2xlarge, c6a.8xlarge, c6a.12xlarge)."
  }
}

variable "ami_id" {
  type        = string
  description = "AMI to boot; empty means the newest Canonical Ubuntu 24.04 amd64 image in the region."
  default     = ""

  validation {
    condition     = var.ami_id == "" || can(regex("^ami-[0-9a-f]{8,17}$", var.ami_id))
    error_message = "ami_id must be empty or an AMI id like ami-0123456789abcdef0."
  }
}


variable "profile" {
  type        = string
  description = "Suite profile the box runs (pipeline/profiles/<name>.json)."
  default     = "full"

  validation {
    condition     = contains(local.allowed.profiles, var.profile)
    error_message = "profile must be one of: smoke, full, quick, ci, catalogue, seed001."
  }
}

variable "studies" {
  type        = list(string)
  description = "Studies to run."

  validation {
    condition     = length(var.studies) > 0 && alltrue([for s in var.studies : contains(local.allowed.studies, s)])
    error_message = "studies must be a non-empty list of folders of bench-scripts/studies (each with a study.json)."
  }
}

variable "systems" {
  type        = list(string)
  description = "Systems to run."

  validation {
    condition     = length(var.systems) > 0 && alltrue([for s in var.systems : contains(local.allowed.systems, s)])
    error_message = "systems must be a non-empty list of folders of bench-scripts/systems (each with a system.json)."
  }
}

variable "workloads" {
  type        = list(string)
  description = "Share of the study's workloads this box runs (the estimate splits a study too long for one box); empty: all."
  default     = []

  validation {
    condition     = alltrue([for w in var.workloads : can(regex("^[a-z0-9_-]+$", w))])
    error_message = "workloads must be workload names (lowercase letters, digits, _ and -)."
  }
}

variable "variants" {
  type        = list(string)
  description = "Variants this box runs (a workload too long for one box is split by variant); empty: all."
  default     = []

  validation {
    condition     = alltrue([for v in var.variants : can(regex("^[a-z0-9_-]+$", v))])
    error_message = "variants must be variant names (lowercase letters, digits, _ and -)."
  }
}

variable "repository_url" {
  type        = string
  description = "HTTPS clone URL of the samebox repository the box checks out."

  validation {
    # A narrow character set: the value is written into the box's env file.
    condition     = can(regex("^https://[A-Za-z0-9./_-]+$", var.repository_url))
    error_message = "repository_url must be an https:// clone URL of letters, digits and ./_- only."
  }
}

variable "commit" {
  type        = string
  description = "Full git commit the box checks out and measures."

  validation {
    condition     = can(regex("^[0-9a-f]{40}$", var.commit))
    error_message = "commit must be a full 40-character lowercase hex git commit."
  }
}

variable "max_minutes" {
  type        = number
  description = "Hard limit: the box arms `shutdown -h +max_minutes` before anything else, and shutdown terminates it. The bench workflow derives it per study from the estimate (pipeline/lib/estimate.ts)."
  default     = 240

  validation {
    condition     = var.max_minutes >= 20 && var.max_minutes <= 600
    error_message = "max_minutes must be between 20 and 600."
  }
}

variable "upload_interval_seconds" {
  type        = number
  description = "The box uploads its run folder every this many seconds while the suite runs (0: only at the end), so a box that dies keeps every finished cell."
  default     = 300

  validation {
    condition     = var.upload_interval_seconds == 0 || (var.upload_interval_seconds >= 60 && var.upload_interval_seconds <= 3600)
    error_message = "upload_interval_seconds must be 0 (upload only at the end) or between 60 and 3600."
  }
}

variable "root_volume_gb" {
  type        = number
  description = "Encrypted gp3 root volume size; the full profile's datasets (sysbench tables, TPC-H-style Parquet) need about 100 GB with headroom."
  default     = 200

  validation {
    condition     = var.root_volume_gb >= 30 && var.root_volume_gb <= 1000
    error_message = "root_volume_gb must be between 30 and 1000."
  }
}

variable "results_bucket" {
  type        = string
  description = "Results bucket from the bootstrap (output github_variables.SAMEBOX_RESULTS_BUCKET)."

  validation {
    condition     = can(regex("^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$", var.results_bucket))
    error_message = "results_bucket must be an S3 bucket name (3-63 lowercase letters, digits, dots, dashes)."
  }
}

variable "box_instance_profile" {
  type        = string
  description = "Instance profile from the bootstrap (SAMEBOX_BOX_PROFILE)."

  validation {
    condition     = var.box_instance_profile != ""
    error_message = "box_instance_profile must not be empty: set the repository variable SAMEBOX_BOX_PROFILE (bootstrap output)."
  }
}

variable "box_role_id" {
  type        = string
  description = "Unique id of the box role (SAMEBOX_BOX_ROLE_ID); with the instance id it names the box's upload prefix."

  validation {
    condition     = can(regex("^AROA[A-Z0-9]{12,}$", var.box_role_id))
    error_message = "box_role_id must be the box role's unique id (AROA...), the bootstrap output SAMEBOX_BOX_ROLE_ID."
  }
}

variable "box_security_group_id" {
  type        = string
  description = "The egress-only security group from the bootstrap (SAMEBOX_BOX_SG_ID)."

  validation {
    condition     = can(regex("^sg-[0-9a-f]{8,17}$", var.box_security_group_id))
    error_message = "box_security_group_id must be a security group id like sg-0123456789abcdef0 (bootstrap output SAMEBOX_BOX_SG_ID)."
  }
}


variable "subnet_id" {
  type        = string
  description = "Subnet for the box (bootstrap output SAMEBOX_SUBNET_ID); empty lets EC2 pick a default subnet of the default VPC. It needs a route to the internet."
  default     = ""

  validation {
    condition     = var.subnet_id == "" || can(regex("^subnet-[0-9a-f]{8,17}$", var.subnet_id))
    error_message = "subnet_id must be empty (default VPC) or a subnet id like subnet-0123456789abcdef0."
  }
}

variable "expiry_role_arn" {
  type        = string
  description = "Role EventBridge Scheduler terminates the box through at its expiry (bootstrap output SAMEBOX_EXPIRY_ROLE_ARN)."

  validation {
    condition     = can(regex("^arn:aws:iam::[0-9]{12}:role/[A-Za-z0-9+=,.@_/-]+$", var.expiry_role_arn))
    error_message = "expiry_role_arn must be an IAM role ARN like arn:aws:iam::123456789012:role/samebox-box-expiry (bootstrap output SAMEBOX_EXPIRY_ROLE_ARN)."
  }
}

variable "expiry_schedule_group" {
  type        = string
  description = "EventBridge Scheduler group of the expiry schedules; the bootstrap names it after the project."
  default     = "samebox"

  validation {
    condition     = can(regex("^[0-9A-Za-z_.-]{1,64}$", var.expiry_schedule_group))
    error_message = "expiry_schedule_group must be 1-64 letters, digits, '.', '_' or '-' (the bootstrap's group is the project name, samebox)."
  }
}
