SELECT	  	  	   						  	 		 	  	 	 	 	 		 	  1;
