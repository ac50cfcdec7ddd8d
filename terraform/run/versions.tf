terraform {
  # 1.10: S3 backend native lock file; 1.9: validation may refer to locals.
  required_version = ">= 1.10.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.100, < 7.0"
    }
  }

  # bucket, key (runs/<run-id>.tfstate) and region come from -backend-config
  # at init time (see .github/workflows/bench.yml), so one module serves every run.
  backend "s3" {
    use_lockfile = true
    encrypt      = true
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = local.tags
  }
}
