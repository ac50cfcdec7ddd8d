terraform {
  # 1.10 brought the S3 backend's native lock file (use_lockfile); 1.9 lets a
  # variable's validation refer to locals.
  required_version = ">= 1.10.0"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = ">= 5.100, < 7.0"
    }
  }
}

provider "aws" {
  region = var.region

  default_tags {
    tags = {
      Project   = var.project
      ManagedBy = "terraform/bootstrap"
    }
  }
}
