SELECT			 	 				  		  			 	 			   	       	 	 1;
