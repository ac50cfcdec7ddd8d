locals {
  # The single list of valid inputs, shared with the workflow's validation.
  allowed = jsondecode(file("${path.module}/../allowed.json"))
}

variable "region" {
  type        = string
  description = "AWS region of the bootstrap (results bucket, security groups, instance profile)."

  validation {
    condition     = contains(local.allowed.regions, var.region)
    error_message = "region must be one of the regions in terraform/allowed.json."
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

variable "topology" {
  type        = string
  description = "single: one box runs the databases and the load. split: a second box in the same cluster placement group runs the load client."
  default     = "single"

  validation {
    condition     = contains(local.allowed.topologies, var.topology)
    error_message = "topology must be one of: single, split."
  }
}

variable "profile" {
  type        = string
  description = "Suite profile the box runs (pipeline/profiles/<name>.json)."
  default     = "full"

  validation {
    condition     = contains(local.allowed.profiles, var.profile)
    error_message = "profile must be one of: ci, quick, full."
  }
}

variable "studies" {
  type        = list(string)
  description = "Studies to run."

  validation {
    condition     = length(var.studies) > 0 && alltrue([for s in var.studies : contains(local.allowed.studies, s)])
    error_message = "studies must be a non-empty list drawn from: oltp, mcp-db, analytical."
  }
}

variable "systems" {
  type        = list(string)
  description = "Systems to run."

  validation {
    condition     = length(var.systems) > 0 && alltrue([for s in var.systems : contains(local.allowed.systems, s)])
    error_message = "systems must be a non-empty list drawn from: postgresql, mariadb, mysql, sqlite, duckdb."
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
  description = "Hard limit: the box arms `shutdown -h +max_minutes` before anything else, and shutdown terminates it."
  default     = 240

  validation {
    condition     = var.max_minutes >= 20 && var.max_minutes <= 600
    error_message = "max_minutes must be between 20 and 600."
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
}

variable "box_role_id" {
  type        = string
  description = "Unique id of the box role (SAMEBOX_BOX_ROLE_ID); with the instance id it names the box's upload prefix."
}

variable "box_security_group_id" {
  type        = string
  description = "The egress-only security group from the bootstrap (SAMEBOX_BOX_SG_ID)."
}

variable "split_security_group_id" {
  type        = string
  description = "The database-ports-between-boxes group from the bootstrap (SAMEBOX_SPLIT_SG_ID); used only when topology = split."
  default     = ""
}

variable "subnet_id" {
  type        = string
  description = "Subnet for the box(es); empty lets EC2 pick a default subnet. It needs a route to the internet."
  default     = ""
}
