SELECT				  		 	 				  				   	 		 		 	  		   1;
